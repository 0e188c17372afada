#!/usr/bin/env bash
# Build the Linux one-folder app with PyInstaller, run its smoke test offscreen, print its size
# and its start-up time next to the venv's planner-app. Run from a venv with the app installed:
#   pip install -e . && bash installers/build_linux.sh
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet "pyinstaller>=6"
pyinstaller --noconfirm --clean --log-level WARN \
    --distpath installers/dist --workpath installers/build installers/planner-app.spec
app=installers/dist/planner-app/planner-app
home=$(mktemp -d)
export QT_QPA_PLATFORM=offscreen
"$app" --home "$home" gui --smoke-test
echo "size of the app folder: $(du -sh installers/dist/planner-app | cut -f1)"
time_it() {
    python - "$@" <<'PY'
import subprocess, sys, time
t0 = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, capture_output=True)
print(f"{time.perf_counter() - t0:.2f}")
PY
}
frozen=$(time_it "$app" --home "$home" gui --smoke-test)
venv=$(time_it planner-app --home "$home" gui --smoke-test)
echo "start-up to a shown, rendered window (smoke test): frozen ${frozen}s, venv ${venv}s"
