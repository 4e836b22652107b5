package prolific

import (
	"errors"
	"strconv"
	"testing"
	"time"
)

func TestVerifyWebhook(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	ts := strconv.FormatInt(now.Unix(), 10)
	body := []byte(`{"event_type":"study.status.change","resource_id":"x"}`)
	sig := SignWebhook("s3cret", ts, body)
	old := strconv.FormatInt(now.Add(-6*time.Minute).Unix(), 10)
	for _, c := range []struct {
		name            string
		secret, ts, sig string
		body            []byte
		want            error
	}{
		{"good", "s3cret", ts, sig, body, nil},
		{"no secret configured", "", ts, sig, body, ErrNoWebhookSecret},
		{"wrong secret", "other", ts, sig, body, ErrBadSignature},
		{"body changed", "s3cret", ts, sig, append(append([]byte(nil), body...), ' '), ErrBadSignature},
		{"timestamp changed", "s3cret", strconv.FormatInt(now.Unix()+1, 10), sig, body, ErrBadSignature},
		{"no signature", "s3cret", ts, "", body, ErrBadSignature},
		{"stale, signed", "s3cret", old, SignWebhook("s3cret", old, body), body, ErrStaleDelivery},
		{"not a number, signed", "s3cret", "yesterday", SignWebhook("s3cret", "yesterday", body), body, ErrStaleDelivery},
	} {
		if err := VerifyWebhook(c.secret, c.ts, c.sig, c.body, now); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// Within the window either side is accepted.
	for _, d := range []time.Duration{-4 * time.Minute, 4 * time.Minute} {
		at := strconv.FormatInt(now.Add(d).Unix(), 10)
		if err := VerifyWebhook("s3cret", at, SignWebhook("s3cret", at, body), body, now); err != nil {
			t.Errorf("%v off: %v", d, err)
		}
	}
}
