"""tests/guest/kmemleak-scan.sh records why there was no scan to trust."""
import os
import pathlib
import subprocess

HERE = pathlib.Path(__file__).parent
SCAN = HERE.parent.parent / 'tests' / 'guest' / 'kmemleak-scan.sh'


def run(tmp_path, kmemleak):
    env = dict(os.environ, KMEMLEAK=str(kmemleak), KMEMLEAK_MIN_AGE='0')
    subprocess.run(['bash', str(SCAN), str(tmp_path)], env=env, capture_output=True,
                   text=True, timeout=120)
    return (tmp_path / 'kmemleak-status').read_text().strip()


def test_no_kmemleak_file(tmp_path):
    assert run(tmp_path, tmp_path / 'none').startswith('no ')


def test_scan_refused(tmp_path):
    # a write to the file fails, as it does (EPERM) when kmemleak is off
    (tmp_path / 'kmemleak').mkdir()
    assert 'kmemleak refused scan 1' in run(tmp_path, tmp_path / 'kmemleak')
