package itemfiles

import (
	"bytes"
	"slices"
	"strings"

	"pragmalab/csvsafe"
)

// Templates of the item files a researcher fills in, one per kind of
// material (docs/items.md#fields): every column, and a row of each use —
// a data item, an attention check of each side, a practice item of each
// side — so the file imports as it stands and shows what goes where.

// ItemsTemplateCSV is the implicature items template (expert and crowd
// studies), in the import format of WriteItemsCSV. A crowd study passes
// the conditions it declares (docs/studies.md#conditions): the data item
// then fills only their follow-up texts, so the template imports into it;
// nil (an expert study) fills all three.
func ItemsTemplateCSV(conditions []string) []byte {
	var b bytes.Buffer
	// The examples are the pages' own (docs/items.md#implicature-items).
	rows := [][]string{
		{"syn1", "synthetic", "S1: Do you need help with anything?", "S2: I think C was looking for someone to do X.", "You can help by doing X for C.", "S2: Though they must be done by now.", "S2: In fact, C needs nobody for X.", "S2: C asked me twice this morning.", "S2: The weather is nice today.", "", ""},
		{"sc1", "scalar", "", "Some of the guests left early.", "Not all of the guests left early.", "In fact all of them did.", "", "", "", "", ""},
		{"chk-high", "synthetic", "S1: Is it raining?", "S2: Take an umbrella, it's pouring.", "It is raining.", "S2: I mean it.", "", "", "", "high", ""},
		{"chk-low", "synthetic", "", "S2: The sun rose this morning.", "The sun did not rise this morning.", "S2: As every day.", "", "", "", "low", ""},
		{"train-high", "scalar", "", "Most of the cake is gone.", "Not all of the cake is gone.", "In fact all of it is.", "", "", "", "", "high"},
		{"train-low", "synthetic", "S1: Is Ann home?", "S2: Her keys are gone.", "Ann is not home.", "S2: But she is home; she lost them.", "", "", "", "", "low"},
	}
	if conditions != nil {
		for i, c := range []string{"negation", "strengthen", "neutral"} {
			if !slices.Contains(conditions, c) {
				rows[0][6+i] = ""
			}
		}
	}
	w := csvsafe.NewWriter(&b)
	w.Write(itemFileFields)
	for _, r := range rows {
		w.Write(r)
	}
	w.Flush()
	return b.Bytes()
}

// PassagesTemplateTSV is the passage template (context and explain
// studies): the IMPAQTS-PID columns, tab separated, and one passage.
func PassagesTemplateTSV() []byte {
	cols := []string{colID, colFile, colTag, colKind, colTopic, colText, colAnswer, colAnsID, colOptions, colPeriod}
	row := []string{"P0001", "ADGA46-A1.xmi", "Impl_cvrs", "Impl", "-1",
		"Il governo ha parlato molto. Noi, invece, abbiamo fatto le riforme.",
		"A. Il governo non ha fatto le riforme.", "A",
		`"A. Il governo non ha fatto le riforme.` + "\n" + `B. Il governo ha fatto le riforme.` + "\n" + `C. Noi non abbiamo parlato.` + "\n" + `D. Le riforme sono inutili."`,
		""}
	return []byte(strings.Join(cols, "\t") + "\n" + strings.Join(row, "\t") + "\n")
}

// OutputsTemplateCSV is the model outputs template (explain studies).
func OutputsTemplateCSV() []byte {
	return []byte("item_id,strategy,model,output\nP0001,zero-shot,my-model,\"The speaker implies that the government did not carry out the reforms.\"\n")
}
