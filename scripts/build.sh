#!/usr/bin/env bash
# Builds everything for use: installs build prerequisites (idempotent), the release N-API addon, the
# release wasm module and the TypeScript. Afterwards `node bin/codegraph.js …` works.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build-native.sh
bash scripts/build-wasm.sh
npm run -s build:ts
