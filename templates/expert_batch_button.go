package templates

// batchButton is the label of an expert's batch button, one space before
// the batch's number: "Start #1", "Continue #2", "Review #3".
func batchButton(lang string, a ExpertBatchRow) string {
	key := "start"
	switch {
	case a.Done:
		key = "review"
	case a.Answered > 0:
		key = "continue"
	}
	return T(lang, key) + " #" + itoa(a.BatchNumber)
}
