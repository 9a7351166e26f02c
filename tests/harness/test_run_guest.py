"""scripts/run-guest.sh with a stub vng: the guest's exit code is passed
on, and a guest whose init cannot run the command (virtme-ng's "cannot
find script I/O ports", then an interactive shell) fails at once instead
of waiting for the timeout."""
import os
import pathlib
import subprocess
import time

TOP = pathlib.Path(__file__).parent.parent.parent
RUN_GUEST = TOP / 'scripts' / 'run-guest.sh'


def guest_env(tmp_path, body):
    """a stub vng running BODY and a debug kernel image; run-guest.sh's env"""
    cache = tmp_path / 'cache'
    (cache / 'venv' / 'bin').mkdir(parents=True)
    vng = cache / 'venv' / 'bin' / 'vng'
    vng.write_text('#!/bin/sh\n' + body)
    vng.chmod(0o755)
    work = tmp_path / 'work'
    img = work / 'build-debug' / 'arch' / 'x86' / 'boot'
    img.mkdir(parents=True)
    (img / 'bzImage').write_text('')
    env = dict(os.environ, KNAPID_CACHE=str(cache), WORK=str(work), BASE='7.3')
    return env


def run(tmp_path, body, tmo=120):
    env = guest_env(tmp_path, body)
    t0 = time.monotonic()
    r = subprocess.run([str(RUN_GUEST), 'debug', str(tmp_path / 'out'), str(tmo), 'true'],
                       env=env, capture_output=True, text=True, timeout=tmo + 60)
    return r.returncode, r.stderr, time.monotonic() - t0


def test_exit_code_of_the_guest_is_passed_on(tmp_path):
    rc, err, _ = run(tmp_path, 'echo booted\nexit 3\n')
    assert rc == 3, err
    assert 'guest debug: exited with 3' in err
    assert (tmp_path / 'out' / 'console.log').read_text() == 'booted\n'


def test_init_without_script_ports_fails_at_once(tmp_path):
    rc, err, secs = run(tmp_path, 'echo "virtme-ng-init: virtme-init: cannot find script I/O '
                        'ports; make sure virtio-serial is available"\nexec sleep 100\n')
    assert rc == 1, err
    assert 'found no script I/O ports' in err and 'the command never ran' in err
    assert secs < 30, secs


def test_stopping_the_script_stops_the_guest(tmp_path):
    """a caller that kills run-guest.sh (Ctrl-C, bench's trap) must not
    leave the guest running until its timeout"""
    env = guest_env(tmp_path, f'echo $$ > {tmp_path}/vng.pid\nexec sleep 100\n')
    p = subprocess.Popen([str(RUN_GUEST), 'debug', str(tmp_path / 'out'), '200', 'true'],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pidfile = tmp_path / 'vng.pid'
    for _ in range(100):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        time.sleep(0.1)
    guest = int(pidfile.read_text())
    p.terminate()
    p.wait(timeout=30)
    for _ in range(100):
        if not os.path.exists(f'/proc/{guest}'):
            break
        time.sleep(0.1)
    assert not os.path.exists(f'/proc/{guest}'), 'the guest outlived run-guest.sh'
