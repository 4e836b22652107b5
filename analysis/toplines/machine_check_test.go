package toplines

import (
	"errors"
	"pragmalab/analysis"
	"strings"
	"testing"
)

// A ratings file may end with machine_instruction (#32 §5): empty, 0 or 1
// read back; anything else names the line and the column.
func TestRatingsMachineColumn(t *testing.T) {
	head := "participant_id,batch_id,item_id,item_type,condition,rating,check,item_version,answer_changes,hidden_ms,first_input_ms,machine_instruction\n"
	good := head + "p1,1,i1,scalar,trigger,6,,1,0,0,900,1\np1,1,i2,scalar,cancel,2,,1,,,,\np1,1,i3,scalar,trigger,5,,1,,,,0\n"
	if _, err := ReadRatings(strings.NewReader(good)); err != nil {
		t.Fatalf("good file: %v", err)
	}
	_, err := ReadRatings(strings.NewReader(head + "p1,1,i1,scalar,trigger,6,,1,,,,2\n"))
	var ie *analysis.InputError
	if !errors.As(err, &ie) || ie.Line != 2 || ie.Column != "machine_instruction" {
		t.Fatalf("machine_instruction 2: %v", err)
	}
}
