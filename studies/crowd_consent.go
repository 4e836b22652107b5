package studies

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"pragmalab/domain"
	"pragmalab/store"
)

// The consent step of a crowd study (docs/studies.md#consent and
// #no-hoarding): who may start is decided before the consent form is
// shown, the form names the researcher, the ethics approval and the
// study's length, and "I do not agree" stores nothing but the refusal.

// From tells the session which client address it serves; the address is
// kept only as a hash, to count the places one address holds.
func (c *CrowdSession) From(addr string) {
	if addr == "" {
		c.client = ""
		return
	}
	sum := sha256.Sum256([]byte("pragmalab crowd client\x00" + addr))
	c.client = hex.EncodeToString(sum[:16])
}

// beforeConsent turns the landing page of a newcomer (an entry, not a
// session) into PageCannotStart when they could not take a place now, so
// they learn it before reading the consent form; and the "start from
// Prolific" page of a browser that declined consent into PageDeclined.
func (c *CrowdSession) beforeConsent(ctx context.Context, next CrowdNext, p *store.CrowdParticipant) (CrowdNext, error) {
	switch {
	case p != nil:
		return next, nil
	case next.Page == PageLanding:
		err := c.db.CrowdCanStart(ctx, c.Study.ID, c.client, c.Settings)
		switch {
		case err == nil:
			return next, nil
		case errors.Is(err, domain.ErrStudyFull), errors.Is(err, domain.ErrAddressLimit), errors.Is(err, domain.ErrNoBatches):
			return CrowdNext{Page: PageCannotStart, Refusal: err}, nil
		}
		return next, err
	case next.Page == PageStart:
		refused, err := c.db.CrowdRefused(ctx, c.Study.ID, c.token)
		if refused {
			return CrowdNext{Page: PageDeclined}, err
		}
		return next, err
	}
	return next, nil
}

// Decline records "I do not agree" from a participant who has not
// consented: their entry is deleted and only the refusal is kept; the
// next page is PageDeclined with the no-consent code, and the Prolific
// review screens the person out (RecordConsentRefusal). A browser that is
// no entry (a session already, or none) is ENOTFOUND.
func (c *CrowdSession) Decline(ctx context.Context) error {
	if err := c.gate(ctx); err != nil {
		return err
	}
	return c.db.RefuseCrowdConsent(ctx, c.Study.ID, c.token, ReasonConsent)
}

// NoConsentCode is the code a participant who does not agree takes back
// to Prolific: the study's no-consent code, else its screen-out code, else
// "" (the page then asks them to return the study).
func (c *CrowdSession) NoConsentCode() string {
	if c.Settings.NoConsentCode != "" {
		return c.Settings.NoConsentCode
	}
	return c.Settings.ScreenOutCode
}

// ConsentFacts is what the consent page states beside the consent text.
type ConsentFacts struct {
	Researcher, Contact, EthicsRef string
	// Minutes is the estimated length: the researcher's figure, else the
	// practice and first batch's screens × the measured median time per
	// screen (or domain.SecondsPerScreen before 20 answers are measured).
	Minutes  int
	Measured bool // the estimate uses measured answer times
	Screens  int  // practice items plus the batch's screens
}

// Consent facts of the study, for its landing page.
func (c *CrowdSession) ConsentFacts(ctx context.Context) (ConsentFacts, error) {
	f := ConsentFacts{Researcher: c.Settings.Researcher, Contact: c.Settings.Contact, EthicsRef: c.Settings.EthicsRef}
	screens, training, median, err := c.db.CrowdStudyLength(ctx, c.Study.ID)
	if err != nil {
		return f, err
	}
	f.Screens = screens + training
	f.Measured = median > 0 && c.Settings.Minutes == 0
	f.Minutes = c.Settings.EstimatedMinutes(f.Screens, median)
	return f, nil
}

// Why someone was screened out, as the review page says it.
const (
	ReasonTraining = "failed the training twice"
	ReasonConsent  = "declined consent"
)

// RecordConsentRefusal records that the browser holding token declined
// the consent of crowd study studyID — what the consent page's "I do not
// agree" does (CrowdSession.Decline) — so the Prolific review screens the
// person out (with payment, when the study uses it) instead of counting
// them as never reached. It returns the code to send them back with: the
// no-consent code, else the screen-out code, else "". Calling it again
// changes nothing.
func (s *Service) RecordConsentRefusal(ctx context.Context, studyID int64, token string) (string, error) {
	_, set, err := s.db.CrowdStudy(ctx, studyID)
	if err != nil {
		return "", err
	}
	if err := s.db.RefuseCrowdConsent(ctx, studyID, token, ReasonConsent); err != nil {
		return "", err
	}
	if set.NoConsentCode != "" {
		return set.NoConsentCode, nil
	}
	return set.ScreenOutCode, nil
}
