#!/usr/bin/env bash
# Answer every question with `gllam ask` (STRONG model MODEL, context of BUDGET tokens) on its own
# scope; one JSON line per question in OUT/results_<model>.jsonl: id, category, question, gold
# answer, answer, citations, context, context tokens, LLM tokens, latency. Resumable: questions
# already in the file are skipped. MemoryArena: before subtask i is asked, its task's scope gains
# subtask i-1 with its result (and subtask i's own background), extracted like the rest.
# shellcheck source=bench/qa/lib.sh disable=SC2016 # jq programs are single-quoted on purpose
source "$(dirname "$0")/lib.sh"

results="$OUT/results_${MODEL//\//_}.jsonl"
touch "$results"
mapfile -t questions < <(list_questions)
done_count=0
for line in "${questions[@]}"; do
  id=$(jq -r '.id' <<<"$line")
  done_count=$((done_count + 1))
  if grep -qF "\"id\":\"$id\"" "$results"; then continue; fi
  scope=$(jq -r '.scope' <<<"$line")
  if [[ "$DATASET" == memoryarena ]]; then remember_step "$scope" "$(jq -r '.position' <<<"$line")"; fi
  question=$(jq -r '.question' <<<"$line")
  started=$(date +%s%3N)
  answer=$(gllam ask "$question" --scope "$scope" --db "$DB" --budget "$BUDGET" --embedder static --json)
  latency=$(($(date +%s%3N) - started))
  jq -c -n --argjson q "$line" --argjson a "$answer" --argjson ms "$latency" \
    '$q + {answer: $a.answer, known: $a.known, citations: $a.citations, context: $a.context.markdown, context_tokens: $a.context.tokens,
      prompt_tokens: $a.usage.promptTokens, completion_tokens: $a.usage.completionTokens, latency_ms: $ms}' >>"$results"
  progress "$done_count" "${#questions[@]}" "questions answered"
done
progress_done
jq -s -r '"answered \(length) question(s): context tokens \(map(.context_tokens) | add / length | floor) per question; LLM tokens \(map(.prompt_tokens + .completion_tokens) | add) in total (\(map(.prompt_tokens + .completion_tokens) | add / length | floor) per question)"' "$results"
