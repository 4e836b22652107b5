// Package scoring asks language models (and built-in baselines) the questions
// of docs/scoring.md and turns their answers into the metrics the papers
// report.
//
// It is pure of storage: items come in as plain values (TFItem, MCItem), a job
// is a list of Prompts, each answered by a Scorer (the OpenAI-compatible
// Client or a built-in baseline), and the answers are folded into TFMetrics or
// MCMetrics. The runner that persists prompts and answers lives elsewhere.
package scoring
