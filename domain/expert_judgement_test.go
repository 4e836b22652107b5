package domain

import "testing"

// The cancellation is judged only when the implicature is plausible: an
// answer to it sent with No is not kept, while the alternatives No calls
// for are; with Yes the question must be answered.
func TestJudgementCancellationOnlyWhenPlausible(t *testing.T) {
	j := Judgement{Plausible: "no", CancellationCorrect: "yes", AltImplicature: " another ", AltCancellation: "better"}
	if err := j.Validate(TypeScalar); err != nil {
		t.Fatal(err)
	}
	if j.CancellationCorrect != "" || j.AltImplicature != "another" || j.AltCancellation != "better" {
		t.Fatalf("after No: %+v, want no cancellation answer and both alternatives", j)
	}
	y := Judgement{Plausible: "yes"}
	if err := y.Validate(TypeScalar); err == nil {
		t.Fatal("Yes without a cancellation answer was accepted")
	}
	y.CancellationCorrect = "no"
	if err := y.Validate(TypeScalar); err != nil || y.CancellationCorrect != "no" {
		t.Fatalf("Yes/No: %+v, %v", y, err)
	}
}
