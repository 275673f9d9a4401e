# shellcheck shell=bash disable=SC2016 # jq programs and inline scripts are single-quoted on purpose
# Shared by the QA pipeline scripts: settings, the gllam command, the question list, progress.
#
# Settings (environment):
#   DATASET   locomo | longmemeval | beam | memoryarena (required)
#   DATA      the benchmark's JSON file; for BEAM its folder of chats (100K/ holding 1/chat.json, 1/probing_questions/...);
#             for MemoryArena a .jsonl file or a folder of config folders or files (bundled_shopping/data.jsonl, ...) (required)
#   MODEL     the model tag: STRONG_LLM_MODEL for answers and grading, and the results' file names (required)
#   OUT       results folder (default bench/results/qa/<dataset>)
#   LIMIT     only the first N questions (default all)
#   BUDGET    context budget in tokens for `gllam ask` (default 1500)
#   GLLAM     the gllam command (default: `bun src/cli/main.ts` from this checkout)
#   STRONG_TEXT_SERVER  the OpenAI-compatible server (with OPENROUTER_API_KEY where it needs a key)
set -euo pipefail

: "${DATASET:?set DATASET=locomo|longmemeval|beam|memoryarena}"
: "${DATA:?set DATA to the benchmark JSON file}"
: "${MODEL:?set MODEL to the model tag (STRONG_LLM_MODEL)}"
case "$DATASET" in locomo | longmemeval | beam | memoryarena) ;; *) echo "DATASET must be locomo, longmemeval, beam or memoryarena, got $DATASET" >&2 && exit 2 ;; esac
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$ROOT/bench/results/qa/$DATASET}
BUDGET=${BUDGET:-1500}
LIMIT=${LIMIT:-0}
export DB="$OUT/memory.db"
export STRONG_LLM_MODEL="$MODEL"
mkdir -p "$OUT"
# MemoryArena is read by its TypeScript loader (validated line by line; a bad line stops here with
# its file and line): PLAN/questions.jsonl, and PLAN/steps/<scope>/<i>.jsonl, what memory gains
# before subtask i (the background, then each earlier subtask with its result).
PLAN="$OUT/memoryarena"
if [[ "$DATASET" == memoryarena ]]; then bun "$ROOT/bench/qa/memoryarena.ts" "$DATA" "$PLAN"; fi

gllam() {
  if [[ -n "${GLLAM:-}" ]]; then
    # shellcheck disable=SC2086 # GLLAM may be a command with arguments
    $GLLAM "$@"
  else
    bun "$ROOT/src/cli/main.ts" "$@"
  fi
}

# One JSON line per question: id, scope (the conversation or haystack it is asked on), question,
# gold answer, category. LoCoMo category 5 (adversarial) has no answer field: its gold is that the
# conversation does not say; LongMemEval's *_abs questions are abstentions; BEAM's category is the
# ability a probing question tests, its gold the answer (or ideal response or summary) and rubric.
# MemoryArena's category is the config, and each line has the subtask's position in its task.
list_questions() {
  local filter
  if [[ "$DATASET" == memoryarena ]]; then
    first_lines <"$PLAN/questions.jsonl"
    return
  fi
  if [[ "$DATASET" == beam ]]; then
    local chat
    for chat in $(find "$DATA" -mindepth 2 -maxdepth 2 -name chat.json | sort -V); do
      jq -c --arg s "beam-$(basename "$(dirname "$chat")")" 'to_entries[] | .key as $ability | .value | to_entries[] |
        {id: "\($s):\($ability):\(.key)", scope: $s, question: .value.question, category: $ability,
         gold: ([(.value.answer // .value.ideal_response // .value.ideal_summary // "" | tostring)] + (.value.rubric // [] | map("rubric: " + tostring)) | map(select(. != "")) | join("; "))}' \
        "$(dirname "$chat")/probing_questions/probing_questions.json"
    done | first_lines
    return
  fi
  if [[ "$DATASET" == locomo ]]; then
    filter='.[] | .sample_id as $s | .qa | to_entries[] | {id: "\($s):\(.key)", scope: $s, question: .value.question,
      gold: (if .value.category == 5 then "not mentioned in the conversation (adversarial)" else (.value.answer | tostring) end),
      category: ({"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop", "5": "adversarial"}[.value.category | tostring] // "other")}'
  else
    filter='.[] | {id: .question_id, scope: .question_id, question: .question, gold: (.answer | tostring),
      category: (if (.question_id | endswith("_abs")) then "abstention" else .question_type end)}'
  fi
  if [[ "$LIMIT" -gt 0 ]]; then jq -c "[$filter] | .[:$LIMIT][]" "$DATA"; else jq -c "$filter" "$DATA"; fi
}

# The first LIMIT lines of stdin (all without a LIMIT).
first_lines() {
  if [[ "$LIMIT" -gt 0 ]]; then head -n "$LIMIT"; else cat; fi
}

# The units to ingest, one per scope: LoCoMo samples, LongMemEval question haystacks, BEAM chats, MemoryArena tasks.
list_scopes() {
  list_questions | jq -r '.scope' | awk '!seen[$0]++'
}

# `gllam extract` of scope $1's sessions not extracted yet; its report goes to OUT/extract_<model>.jsonl.
extract_scope() {
  gllam extract --scope "$1" --db "$DB" --embedder static --json >>"$OUT/extract_${MODEL//\//_}.jsonl"
}

# MemoryArena: adds to task scope $1 what memory gains before subtask $2 (nothing twice), and extracts it.
remember_step() {
  local step="$PLAN/steps/$1/$2.jsonl"
  [[ -s "$step" ]] || return 0
  gllam ingest "$step" --scope "$1" --db "$DB" --embedder static >/dev/null
  extract_scope "$1"
}

# A one-line progress bar on stderr when it is a terminal: progress DONE TOTAL LABEL.
progress() {
  [[ -t 2 ]] || return 0
  local width=30 filled
  filled=$(($1 * width / ($2 > 0 ? $2 : 1)))
  printf '\r[%s%s] %d/%d %s\033[K' "$(printf '%*s' "$filled" '' | tr ' ' '#')" "$(printf '%*s' $((width - filled)) '' | tr ' ' '.')" "$1" "$2" "$3" >&2
}
progress_done() {
  if [[ -t 2 ]]; then printf '\n' >&2; fi
}
