package e2e

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"pragmalab/domain"
)

// The HTTP forger (docs/testing.md#red-team-suite): no browser, no script.
// It reads each page's HTML, answers with the study's model (a quarter
// moved one point, like the stealth copiers), writes a sentence into a
// text box the page requires (the typed justification) and leaves alone
// any other text field, and posts the form with the integrity signals and
// traces written by itself: clean signals, a real pointer, and a response
// time of 4–8 s where the server's clock sees 0.4–0.6 s.

// forge takes a through the study over plain HTTP.
func (e *rtEnv) forge(t *testing.T, a *rtActor) {
	rng := rand.New(rand.NewPCG(a.seed, 0xf09))
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: stepLimit}
	fetch := func(req *http.Request) (*html.Node, *url.URL) {
		t.Helper()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %s\n%s", req.Method, req.URL, resp.Status, body)
		}
		doc, err := html.Parse(strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		return doc, resp.Request.URL
	}
	get := func(u string) (*html.Node, *url.URL) {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		return fetch(req)
	}
	post := func(base *url.URL, form *html.Node, v url.Values) (*html.Node, *url.URL) {
		action, _ := base.Parse(attr(form, "action"))
		req, _ := http.NewRequest(http.MethodPost, action.String(), strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return fetch(req)
	}
	doc, at := get(fmt.Sprintf("%s/s/%d?PROLIFIC_PID=%s&STUDY_ID=st&SESSION_ID=se-%s", e.ts.URL, e.studyID, a.pid, a.pid))
	for range 80 {
		switch {
		case byTestID(doc, "completion-code") != nil:
			return
		case byTestID(doc, "practice-end") != nil:
			begin, _ := at.Parse(attr(byTestID(doc, "begin"), "href"))
			doc, at = get(begin.String())
		case byTestID(doc, "consent") != nil:
			form := formOf(byTestID(doc, "agree"))
			doc, at = post(at, form, forgedFields(form, rng, nil))
		case byTestID(doc, "rating-form") != nil:
			form := byTestID(doc, "rating-form")
			it, cond, ok := recognise(e.items, textOf(byTestID(doc, "item")))
			if !ok {
				t.Fatalf("no item recognised in %s", textOf(form))
			}
			rating := a.rate(it, cond)
			if byTestID(doc, "training") != nil && !e.set.PracticePasses(cond, rating) {
				rating = map[bool]int{true: 2, false: 6}[cond == domain.ConditionCancel]
			}
			time.Sleep(400*time.Millisecond + time.Duration(rng.IntN(200))*time.Millisecond) // the time the server measures
			doc, at = post(at, form, forgedFields(form, rng, map[string]string{"rating": strconv.Itoa(rating), "text": justification(rng, cond, rating)}))
		case byTestID(doc, "questionnaire") != nil:
			form := formOf(byTestID(doc, "q-send"))
			doc, at = post(at, form, forgedFields(form, rng, map[string]string{"age_range": "35-44", "gender": "no_answer"}))
		default:
			t.Fatalf("the forger met a page it does not know: %s\n%s", at, textOf(doc))
		}
	}
	t.Fatal("the forger never reached the completion page")
}

// forgedFields fills form's fields as the forger does: the hidden fields
// as given, the radios from choice (by the value among the radio's own,
// whatever the field's name), the signals and traces forged, any text
// field left empty.
func forgedFields(form *html.Node, rng *rand.Rand, choice map[string]string) url.Values {
	v := url.Values{}
	radios := map[string][]string{}
	walkNodes(form, func(n *html.Node) {
		if n.Type != html.ElementNode || (n.Data != "input" && n.Data != "textarea" && n.Data != "button") {
			return
		}
		name := attr(n, "name")
		if name == "" {
			return
		}
		switch {
		case n.Data == "button":
			return
		case hasAttr(n, "data-rt"):
			v.Set(name, strconv.Itoa(4000+rng.IntN(4001))) // a reported time the server's clock contradicts
		case hasAttr(n, "data-signal"), hasAttr(n, "data-trace"):
			v.Set(name, map[string]string{
				"untrusted_events": "0", "pastes": "0", "webdriver": "0", "pointer_or_key": "1",
				"answer_changes": "0", "hidden_ms": "0", "first_input_ms": strconv.Itoa(900 + rng.IntN(1500)),
			}[name])
		case n.Data == "textarea" && hasAttr(n, "required"):
			v.Set(name, choice["text"]) // a box the page requires: the justification
		case attr(n, "type") == "radio":
			radios[name] = append(radios[name], attr(n, "value"))
		case attr(n, "type") == "hidden":
			v.Set(name, attr(n, "value"))
		default: // a text field: left as it is
			v.Set(name, attr(n, "value"))
		}
	})
	for name, values := range radios {
		for key, want := range choice {
			// The rating's radios are the ones whose values are points.
			if (key == name || key == "rating" && allDigits(values)) && containsStr(values, want) {
				v.Set(name, want)
			}
		}
	}
	return v
}

func allDigits(vs []string) bool {
	for _, s := range vs {
		if _, err := strconv.Atoi(s); err != nil {
			return false
		}
	}
	return len(vs) > 0
}

func containsStr(vs []string, s string) bool {
	for _, x := range vs {
		if x == s {
			return true
		}
	}
	return false
}

func walkNodes(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walkNodes(c, f)
	}
}

func attr(n *html.Node, key string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func byTestID(doc *html.Node, id string) *html.Node {
	var found *html.Node
	walkNodes(doc, func(n *html.Node) {
		if found == nil && n.Type == html.ElementNode && attr(n, "data-testid") == id {
			found = n
		}
	})
	return found
}

// formOf is the form holding n.
func formOf(n *html.Node) *html.Node {
	for ; n != nil; n = n.Parent {
		if n.Type == html.ElementNode && n.Data == "form" {
			return n
		}
	}
	return nil
}

func textOf(n *html.Node) string {
	var b strings.Builder
	walkNodes(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
			b.WriteString(" ")
		}
	})
	return b.String()
}
