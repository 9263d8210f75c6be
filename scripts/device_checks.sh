#!/usr/bin/env bash
# The checks a session runs when it is lent a CUDA machine, in one go, everything under OUTDIR:
#   log.txt                  what each stage printed, with its exit status and seconds
#   verify-cuda.json         infralens verify --device cuda (every scenario, every annotated step)
#   cost-cuda.json           infralens cost --measure cuda (each model built on the GPU, beside its prediction)
#   verify-cuda-mutate.json  verify --device cuda --mutate, if the time left allows (STOP_AT seconds in all)
# plus the lab starters on CUDA and the gpu-marked tests (and the tracer tests, which on Python 3.12+ run the
# sys.monitoring backend). Usage, from the project root: scripts/device_checks.sh OUTDIR [STOP_AT] [STAGES]
# STAGES (default all): a comma-separated subset of verify,cost,starters,pytest,mutate.
# A machine without the project's packages gets them from wheels in .whl/ (see CONTRIBUTING.md, "GPU runs").
set -u
out=${1:?usage: scripts/device_checks.sh OUTDIR [STOP_AT]}
stop_at=${2:-400}
stages=",${3:-verify,cost,starters,pytest,mutate},"
wanted() { [[ $stages == *",$1,"* ]]; }
mkdir -p "$out"
log="$out/log.txt"
start=$SECONDS
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >>"$log" 2>&1 || { echo "wheel install failed" >>"$log"; exit 1; }
    export PYTHONPATH="/tmp/site:$PWD/src"
else
    export PYTHONPATH="$PWD/src"
fi
mkdir -p /tmp/device-checks-bin  # the command as a file, so that `timeout` can run it without an installed project
printf '#!/bin/sh\nexec python3 -c "import sys; from infralens.cli import main; sys.exit(main(sys.argv[1:]))" "$@"\n' >/tmp/device-checks-bin/infralens
chmod +x /tmp/device-checks-bin/infralens
export PATH="/tmp/device-checks-bin:$PATH"

stage() {  # stage NAME SECONDS COMMAND...: run with a time limit, log its output, exit status and duration
    local name=$1 limit=$2 began=$SECONDS
    shift 2
    echo "=== $name (limit ${limit}s)" >>"$log"
    timeout "$limit" "$@" >>"$log" 2>&1
    echo "=== $name: exit $? in $((SECONDS - began)) s" >>"$log"
}

{ nvidia-smi -L; python3 -c 'import sys, torch; print(sys.version.split()[0], torch.__version__, torch.cuda.get_device_name())'; } >>"$log" 2>&1
wanted verify && stage verify 120 infralens verify --device cuda --jobs 8 --report "$out/verify-cuda.json"
wanted verify && { [ -s "$out/verify-cuda.json" ] || stage verify-settrace 120 infralens verify --device cuda --jobs 8 --backend settrace --report "$out/verify-cuda.json"; }
wanted cost && stage cost 180 infralens cost --measure cuda --format json --output "$out/cost-cuda.json"
starter() { timeout 120 python3 "$1/starter.py" --device cuda >"/tmp/starter-$(basename "$1").log" 2>&1; echo "$? $(basename "$1")"; }
export -f starter
wanted starters && stage starters 90 bash -c 'ls -d labs/lab-* | xargs -P 6 -I{} bash -c "starter {}" | sort -k2; tail -n 3 /tmp/starter-*.log'
wanted pytest && stage pytest-gpu 120 env INFRALENS_TEST_DEVICE=cuda python3 -m pytest -q -p no:cacheprovider -m gpu tests/verify/test_scenarios.py tests/cost/test_cost_report.py
wanted pytest && stage pytest-tracer 45 python3 -m pytest -q -p no:cacheprovider tests/verify/test_tracer.py
left=$((stop_at - (SECONDS - start)))
if wanted mutate && [ "$left" -gt 60 ]; then
    stage verify-mutate "$left" infralens verify --device cuda --jobs 14 --mutate --report "$out/verify-cuda-mutate.json"
else
    echo "=== verify-mutate skipped: ${left}s left" >>"$log"
fi
echo "=== all stages: $((SECONDS - start)) s" >>"$log"
