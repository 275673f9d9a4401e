#!/usr/bin/env bash
# The whole pipeline: extract, audit, answer, grade (each step resumes where it stopped).
set -euo pipefail
here=$(dirname "$0")
"$here/run_extract.sh"
"$here/run_audit.sh"
"$here/run_eval.sh"
"$here/run_grade.sh"
