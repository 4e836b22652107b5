package integrity

import (
	"bytes"
	"pragmalab/analysis/internal/atest"
	"slices"
	"testing"
)

const integrityFuzzHeader = "participant_id,batch_id,item_id,item_type,condition,rating,check,rt_ms,untrusted_events,pastes,webdriver,pointer_or_key,honeypot\n"

// FuzzIntegrity reads a ratings file and a models file as `analyze
// integrity` does. A refused file gets an *InputError with a line of that
// file. Accepted ones: every row read, one result per participant in
// first-seen order, the flags known, in their order, each with its
// evidence, and every share and p-value in [0, 1].
func FuzzIntegrity(f *testing.F) {
	f.Add([]byte(integrityFuzzHeader+
		"p1,1,a,scalar,trigger,4,,3000,0,0,0,1,\np1,1,b,scalar,cancel,2,,900,,,,,\np1,1,c,scalar,trigger,7,high,,3,1,1,0,hi\n"+
		"p2,1,a,scalar,trigger,4,,,0,0,0,0,\np2,1,b,scalar,cancel,3,,,,,,,\n"),
		[]byte("model,item_id,label\nm,a,4\nm,b,2\n"))
	f.Add([]byte("\uFEFFparticipant_id,batch_id,item_id,item_type,condition,rating,check\nx,1,a,natural,neutral,1,\ny,1,a,natural,neutral,5,\n"),
		[]byte("model,item_id,item_type,condition,label,number,mean,not_asked,p_1,p_2,number_fwd,number_rev\nm,a,natural,neutral,5,5,5.0,false,0,1,5,5\n"))
	f.Add([]byte(integrityFuzzHeader+"p1,1,a,scalar,trigger,4,,,-1,,,,\n"), []byte("model,item_id,number\nm,a,9\n"))
	f.Fuzz(func(t *testing.T, ratings, models []byte) {
		rows, err := ReadIntegrityRatings(bytes.NewReader(ratings))
		if err != nil {
			atest.CheckInputError(t, err, ratings)
			return
		}
		if n := len(atest.FileRows(t, ratings)); n != len(rows) {
			t.Fatalf("read %d rows; the file has %d", len(rows), n)
		}
		answers, err := ReadModelAnswers(bytes.NewReader(models), 7)
		if err != nil {
			atest.CheckInputError(t, err, models)
			answers = nil
		}
		var ids []string
		for _, r := range rows {
			if !slices.Contains(ids, r.Participant) {
				ids = append(ids, r.Participant)
			}
		}
		res := Integrity(rows, answers, IntegrityOptions{Echo: DefaultEchoOptions()})
		if len(res) != len(ids) {
			t.Fatalf("%d results for %d participants", len(res), len(ids))
		}
		for i, p := range res {
			checkIntegrityResult(t, p, ids[i])
		}
	})
}

func checkIntegrityResult(t *testing.T, p ParticipantIntegrity, id string) {
	t.Helper()
	if p.Participant != id {
		t.Fatalf("result for %q, want %q", p.Participant, id)
	}
	last := -1
	for _, f := range p.Flags {
		k := slices.Index(IntegrityFlagNames, f)
		if k <= last || p.Evidence[f] == "" {
			t.Fatalf("%s: flags %v out of order, unknown or without evidence (%v)", id, p.Flags, p.Evidence)
		}
		last = k
	}
	if p.LLMEcho == nil {
		return
	}
	for _, m := range p.LLMEcho.Models {
		for _, v := range []*float64{&m.AgreeModel, &m.AgreeHumans, &m.OthersAgreeModel, m.AgreeDivergent, m.ChanceDivergent, m.PValue} {
			atest.CheckShare(t, id+" "+m.Model, v, 0)
		}
	}
	if p.LLMEcho.Flagged != slices.Contains(p.Flags, FlagLLMEcho) {
		t.Fatalf("%s: llm_echo %v, flags %v", id, p.LLMEcho.Flagged, p.Flags)
	}
}
