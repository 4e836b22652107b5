package toplines

import (
	"errors"
	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"strings"
	"testing"
)

// Files that carry items may end with item_version (written since items
// can be corrected); files from before read the same, the column may come
// anywhere, and a bad version is named by line and column.
func TestItemVersionColumnOptional(t *testing.T) {
	const rows = "p1,1,it1,scalar,trigger,5,\np2,1,it1,scalar,cancel,2,\np1,1,it2,scalar,cancel,3,\np2,1,it2,scalar,trigger,6,\n"
	old := "participant_id,batch_id,item_id,item_type,condition,rating,check\n" + rows
	with := "participant_id,batch_id,item_id,item_type,condition,rating,check,item_version\n" +
		strings.ReplaceAll(rows, ",\n", ",,1\n")
	first := "item_version,participant_id,batch_id,item_id,item_type,condition,rating,check\n" +
		"2," + strings.ReplaceAll(strings.TrimSuffix(rows, "\n"), "\n", "\n2,") + "\n"
	for name, file := range map[string]string{"without": old, "with": with, "first": first} {
		rs, err := ReadRatings(strings.NewReader(file))
		if err != nil || rs.NumRows() != 4 {
			t.Errorf("ratings %s item_version: %v\n%s", name, err, file)
		}
	}
	var ie *analysis.InputError
	_, err := ReadRatings(strings.NewReader(strings.Replace(with, ",,1\n", ",,x\n", 1)))
	if !errors.As(err, &ie) || ie.Line != 2 || ie.Column != "item_version" {
		t.Errorf("ratings with item_version x: %v", err)
	}

	const jold = "annotator_id,item_id,item_type,plausible,cancellation_correct\nA,it1,scalar,yes,yes\nB,it1,scalar,no,\n"
	const jnew = "annotator_id,item_id,item_type,plausible,cancellation_correct,item_version\nA,it1,scalar,yes,yes,2\nB,it1,scalar,no,,1\n"
	for name, file := range map[string]string{"without": jold, "with": jnew} {
		if js, err := agreement.ReadJudgements(strings.NewReader(file)); err != nil || len(js) != 2 {
			t.Errorf("judgements %s item_version: %v %v", name, js, err)
		}
	}
	_, err = agreement.ReadJudgements(strings.NewReader(strings.Replace(jnew, "yes,2", "yes,0", 1)))
	if !errors.As(err, &ie) || ie.Line != 2 || ie.Column != "item_version" {
		t.Errorf("judgements with item_version 0: %v", err)
	}
}
