"""scripts/check-bases.sh (make check over the bases) with a stub make:
the next base is prepared while this base's guests run, a base that
fails does not stop the next, and a background preparation that failed
is done once more in the foreground."""
import os
import pathlib
import subprocess

TOP = pathlib.Path(__file__).parent.parent.parent
SCRIPT = TOP / 'scripts' / 'check-bases.sh'

# logs "TARGET BASE start|end" to STUB_MAKE_LOG; check-run takes a second
# (the guests), check-deps a fifth of one; STUB_MAKE_FAIL="TARGET:BASE"
# fails that call the first time (STUB_MAKE_FAIL_ALWAYS=1: every time)
STUB_MAKE = r'''#!/usr/bin/env bash
target= base=
for a in "$@"; do
	case $a in
	check-*) target=$a ;;
	BASE=*) base=${a#BASE=} ;;
	esac
done
log=$STUB_MAKE_LOG
echo "$target $base start" >> "$log"
if [ "$target" = check-run ]; then sleep 1; else sleep 0.2; fi
echo "$target $base end" >> "$log"
if [ "$target:$base" = "${STUB_MAKE_FAIL:-}" ]; then
	marker=$log.failed-$target-$base
	if [ ! -e "$marker" ] || [ "${STUB_MAKE_FAIL_ALWAYS:-0}" = 1 ]; then
		: > "$marker"
		echo "stub make: $target failed for $base" >&2
		exit 2
	fi
fi
[ "$target" = check-run ] && echo "3 passed, 0 failed, 0 skipped"
exit 0
'''


def run(tmp_path, *bases, **env_extra):
    stub = tmp_path / 'make'
    stub.write_text(STUB_MAKE)
    stub.chmod(0o755)
    log = tmp_path / 'calls'
    env = dict(os.environ, CHECK_MAKE=str(stub), STUB_MAKE_LOG=str(log),
               WORK=str(tmp_path / 'work'))
    env.pop('BASE', None)
    env.update(env_extra)
    r = subprocess.run(['bash', str(SCRIPT), *bases], env=env, capture_output=True, check=False,
                       text=True, timeout=60)
    calls = log.read_text().splitlines() if log.exists() else []
    return r.returncode, r.stdout + r.stderr, calls, r.stdout


def test_next_base_prepared_beside_the_guests(tmp_path):
    rc, out, calls, _ = run(tmp_path, '6.12', '7.3')
    assert rc == 0, out
    # 7.3's preparation starts and ends while 6.12's guests run
    i = calls.index
    assert i('check-deps 6.12 end') < i('check-deps 7.3 start') < i('check-run 6.12 end'), calls
    assert i('check-deps 7.3 end') < i('check-run 6.12 end'), calls
    assert i('check-deps 7.3 end') < i('check-run 7.3 start'), calls
    assert calls.count('check-deps 7.3 start') == 1, calls
    assert out.count('3 passed, 0 failed, 0 skipped') == 2, out


def test_one_base_alone(tmp_path):
    rc, out, calls, _ = run(tmp_path, '7.3')
    assert rc == 0, out
    assert calls == ['check-deps 7.3 start', 'check-deps 7.3 end',
                     'check-run 7.3 start', 'check-run 7.3 end'], calls


def test_failed_base_fails_but_the_next_still_runs(tmp_path):
    rc, out, calls, _ = run(tmp_path, '6.12', '7.3', STUB_MAKE_FAIL='check-run:6.12')
    assert rc == 1, out
    assert 'check-run 7.3 end' in calls, calls


def test_background_preparation_that_failed_is_retried(tmp_path):
    rc, out, calls, _ = run(tmp_path, '6.12', '7.3', STUB_MAKE_FAIL='check-deps:7.3')
    assert rc == 0, out
    assert calls.count('check-deps 7.3 start') == 2, calls
    assert 'stub make: check-deps failed for 7.3' in out, out
    assert 'check-run 7.3 end' in calls, calls


def test_preparation_that_fails_twice_fails_that_base(tmp_path):
    rc, out, calls, stdout = run(tmp_path, '6.12', '7.3', STUB_MAKE_FAIL='check-deps:7.3',
                                 STUB_MAKE_FAIL_ALWAYS='1')
    assert rc == 1, out
    assert 'check-run 7.3 start' not in calls, calls
    assert stdout.rstrip().splitlines()[-1] == '0 passed, 1 failed, 0 skipped', out
