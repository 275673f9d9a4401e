#!/usr/bin/env bash
# Ingest the benchmark (one scope per LoCoMo conversation / LongMemEval haystack / BEAM chat) into OUT/memory.db,
# then `gllam extract` each scope with the STRONG model MODEL. Resumable: ingest adds nothing twice
# and extract skips the sessions it already extracted. MemoryArena (one scope per task) gets only
# what memory holds before its first subtask, the background: run_eval.sh adds the rest step by step.
# shellcheck source=bench/qa/lib.sh disable=SC2016 # jq programs are single-quoted on purpose
source "$(dirname "$0")/lib.sh"

mapfile -t scopes < <(list_scopes)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
done_count=0
for scope in "${scopes[@]}"; do
  unit="$tmp/unit.json"
  if [[ "$DATASET" == memoryarena ]]; then
    remember_step "$scope" 1
  else
    if [[ "$DATASET" == beam ]]; then
      cp "$DATA/${scope#beam-}/chat.json" "$unit"
    elif [[ "$DATASET" == locomo ]]; then
      jq --arg s "$scope" '[.[] | select(.sample_id == $s)]' "$DATA" >"$unit"
    else
      jq --arg s "$scope" '[.[] | select(.question_id == $s)]' "$DATA" >"$unit"
    fi
    gllam ingest "$unit" --format "$DATASET" --scope "$scope" --db "$DB" --embedder static >/dev/null
    extract_scope "$scope"
  fi
  done_count=$((done_count + 1))
  progress "$done_count" "${#scopes[@]}" "scopes extracted"
done
progress_done
echo "extracted ${#scopes[@]} scope(s) into $DB with $MODEL (reports: $OUT/extract_${MODEL//\//_}.jsonl)"
