package scoring

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// endpoint is one base URL with its own concurrency limit and health. An
// endpoint whose requests fail benchAfter times in a row is benched: no
// prompt is sent to it until its cool-down ends, then one request probes
// it; each further benching doubles the cool-down up to maxCooldown, and
// one success clears it.
type endpoint struct {
	base string
	sem  chan struct{}

	mu       sync.Mutex
	fails    int // consecutive failed requests
	until    time.Time
	cooldown time.Duration
	lastErr  string
}

// benchAfter is how many failures in a row bench an endpoint.
const benchAfter = 2

func (e *endpoint) benched(now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return now.Before(e.until)
}

func (e *endpoint) succeeded() {
	e.mu.Lock()
	e.fails, e.until, e.cooldown = 0, time.Time{}, 0
	e.mu.Unlock()
}

// failed records a failure; it reports whether the endpoint is now benched
// (newly), with the cool-down.
func (e *endpoint) failed(now time.Time, first, max time.Duration, why string) (bool, time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fails++
	e.lastErr = why
	if e.fails < benchAfter || now.Before(e.until) {
		return false, 0
	}
	if e.cooldown == 0 {
		e.cooldown = first
	} else {
		e.cooldown = min(2*e.cooldown, max)
	}
	e.until = now.Add(e.cooldown)
	return true, e.cooldown
}

// pick chooses the endpoint for the next attempt of a prompt: round-robin
// over the endpoints neither benched nor already tried by this prompt in
// this round, else over those not benched, else the benched one whose
// cool-down ends first (a probe). fresh reports the first case: the
// attempt may go at once, without back-off.
func (c *Client) pick(tried map[*endpoint]bool) (ep *endpoint, fresh bool) {
	now := c.now()
	n := len(c.eps)
	start := int(c.next.Add(1)-1) % n
	var healthy *endpoint
	for k := range n {
		e := c.eps[(start+k)%n]
		if e.benched(now) {
			continue
		}
		if !tried[e] {
			return e, true
		}
		if healthy == nil {
			healthy = e
		}
	}
	if healthy != nil {
		return healthy, false
	}
	ep = c.eps[start]
	for _, e := range c.eps {
		e.mu.Lock()
		u := e.until
		e.mu.Unlock()
		ep.mu.Lock()
		best := ep.until
		ep.mu.Unlock()
		if u.Before(best) {
			ep = e
		}
	}
	return ep, false
}

// EndpointState is what a probe found about one endpoint.
type EndpointState struct {
	Base  string
	Error string // empty when the endpoint accepts connections
}

// Probe tries a TCP connection to every endpoint (at most timeout each, in
// parallel) so an endpoint that refuses connections is reported when a job
// starts rather than after minutes of retries. An endpoint that does not
// answer is benched at once; the others are left as they were.
func (c *Client) Probe(ctx context.Context, timeout time.Duration) []EndpointState {
	out := make([]EndpointState, len(c.eps))
	var wg sync.WaitGroup
	for i, e := range c.eps {
		out[i].Base = e.base
		wg.Go(func() {
			u, err := url.Parse(e.base)
			if err != nil {
				out[i].Error = err.Error()
				return
			}
			host := u.Host
			if u.Port() == "" {
				port := "80"
				if u.Scheme == "https" {
					port = "443"
				}
				host = net.JoinHostPort(u.Hostname(), port)
			}
			dctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			// Through a proxy the probe reaches the proxy, as the requests
			// will, after the same check of the endpoint's own address.
			dial := c.dialer().DialContext
			if pu, perr := c.proxy(u); perr != nil || pu != nil {
				if perr == nil {
					perr = c.checkProxied(dctx, u.Hostname())
				}
				if perr != nil {
					out[i].Error = perr.Error()
					return
				}
				host = proxyAddr(pu)
				dial = (&net.Dialer{Timeout: 10 * time.Second}).DialContext
			}
			conn, err := dial(dctx, "tcp", host)
			if err != nil {
				msg := err.Error()
				if errors.Is(err, syscall.ECONNREFUSED) {
					msg = "connection refused"
				} else if dctx.Err() != nil {
					msg = fmt.Sprintf("no connection within %s", timeout)
				}
				out[i].Error = msg
				for range benchAfter {
					e.failed(c.now(), c.cooldownBase, c.cooldownMax, msg)
				}
				return
			}
			conn.Close()
		})
	}
	wg.Wait()
	return out
}

// dialer is the dialer of the client's own transport: it refuses
// link-local and cloud-metadata addresses, and with public-only also
// loopback and private ones, after DNS resolution (a name that resolves
// there is refused as a literal address would be).
func (c *Client) dialer() *net.Dialer {
	return &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			ip, err := netip.ParseAddr(host)
			if err != nil {
				return fmt.Errorf("refusing to connect to %s: not an IP address", address)
			}
			return checkAddr(ip, c.publicOnly)
		}}
}

// metadataHosts are cloud-metadata services reachable by name; their
// addresses are link-local and refused anyway, but a name is refused
// before any lookup.
var metadataHosts = []string{"metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal", "metadata.azure.internal", "metadata.tencentyun.com"}

// metadataAddrs are cloud-metadata addresses outside the link-local
// ranges (AWS's IPv6 one, Alibaba Cloud's).
var metadataAddrs = []netip.Addr{netip.MustParseAddr("fd00:ec2::254"), netip.MustParseAddr("100.100.100.200")}

// checkAddr refuses link-local and metadata addresses always, and loopback,
// private, shared (CGNAT) and unspecified ones when publicOnly is set.
func checkAddr(ip netip.Addr, publicOnly bool) error {
	ip = ip.Unmap()
	if ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() {
		return fmt.Errorf("%s is a link-local address (where cloud metadata services live); base URLs may not point there", ip)
	}
	for _, m := range metadataAddrs {
		if ip == m {
			return fmt.Errorf("%s is a cloud metadata address; base URLs may not point there", ip)
		}
	}
	if publicOnly && (ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || cgnat.Contains(ip)) {
		return fmt.Errorf("%s is a loopback or private address, and this server is started with --public-endpoints-only", ip)
	}
	return nil
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// CheckHost checks where a base URL points without resolving names:
// metadata names and link-local literals are refused; with publicOnly also
// "localhost" names and loopback or private literals. The dialer checks
// the resolved addresses again when connecting.
func CheckHost(base string, publicOnly bool) error {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return errors.New("not a URL")
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	for _, m := range metadataHosts {
		if host == m {
			return fmt.Errorf("%s is a cloud metadata service; base URLs may not point there", host)
		}
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return checkAddr(ip, publicOnly)
	}
	if publicOnly && (host == "localhost" || strings.HasSuffix(host, ".localhost")) {
		return fmt.Errorf("%s is this machine, and this server is started with --public-endpoints-only", host)
	}
	return nil
}

// KeyEnvNames are the environment variables, besides those starting with
// KeyEnvPrefix, that may hold an API key. The rule keeps an admin from
// sending any other server variable (HOME, a database password) to a host
// of their choosing as a bearer token.
var KeyEnvNames = []string{"OPENAI_API_KEY", "OPENROUTER_API_KEY", "TOGETHER_API_KEY", "GROQ_API_KEY", "MISTRAL_API_KEY", "DEEPSEEK_API_KEY", "VLLM_API_KEY", "HF_TOKEN"}

// KeyEnvPrefix starts the names of variables set aside for pragmalab's API
// keys: PRAGMALAB_KEY_LAB_GPU, PRAGMALAB_KEY_OPENAI…
const KeyEnvPrefix = "PRAGMALAB_KEY_"

// keyEnvAllowed reports whether name may hold an API key.
func keyEnvAllowed(name string) bool {
	if strings.HasPrefix(name, KeyEnvPrefix) && len(name) > len(KeyEnvPrefix) {
		return true
	}
	for _, n := range KeyEnvNames {
		if name == n {
			return true
		}
	}
	return false
}

// MaxErrorBody is how much of a server's error reply is kept in a message.
const MaxErrorBody = 300

// clipBody cuts a server's error reply to MaxErrorBody characters.
func clipBody(s string) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) <= MaxErrorBody {
		return s
	}
	return string(r[:MaxErrorBody]) + "…"
}

// TransientError is a prompt's failure on what may pass (429, 5xx,
// time-outs, network errors, after the retries): the endpoints' state
// rather than the prompt's. A runner stops a job after many in a row; a
// 400 on one prompt says nothing about the next and is not transient.
type TransientError struct{ Err error }

func (e *TransientError) Error() string { return e.Err.Error() }
func (e *TransientError) Unwrap() error { return e.Err }

// IsTransient reports whether err is a TransientError.
func IsTransient(err error) bool {
	var t *TransientError
	return errors.As(err, &t)
}

// proxyAddr is the host:port a proxy URL names (port 80 or 443 by default).
func proxyAddr(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// checkProxied checks where a proxied request goes, since the dialer then
// only sees the proxy: the name as CheckHost does, and the addresses it
// resolves to here as the dialer would. A name that does not resolve here
// (the proxy may see a DNS this machine does not) passes on the name check
// alone.
func (c *Client) checkProxied(ctx context.Context, host string) error {
	if err := CheckHost("http://"+net.JoinHostPort(host, "1"), c.publicOnly); err != nil {
		return err
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, ip := range addrs {
		if err := checkAddr(ip, c.publicOnly); err != nil {
			return fmt.Errorf("refusing to send a request for %s through the proxy: %w", host, err)
		}
	}
	return nil
}

// transport is the client's own transport: requests go through the proxy
// the environment names (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), checked by
// checkProxied; direct connections through the checking dialer. The
// connection to the proxy itself, which the operator configured, is not
// checked.
func (c *Client) transport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = c.cfg.Concurrency
	proxies := map[string]bool{}
	tr.Proxy = func(r *http.Request) (*url.URL, error) {
		pu, err := c.proxy(r.URL)
		if err != nil || pu == nil {
			return pu, err
		}
		if err := c.checkProxied(r.Context(), r.URL.Hostname()); err != nil {
			return nil, err
		}
		return pu, nil
	}
	for _, scheme := range []string{"http", "https"} {
		if pu, err := c.proxy(&url.URL{Scheme: scheme, Host: "pragmalab.invalid"}); err == nil && pu != nil {
			proxies[proxyAddr(pu)] = true
		}
	}
	checked := c.dialer()
	plain := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if proxies[addr] {
			return plain.DialContext(ctx, network, addr)
		}
		return checked.DialContext(ctx, network, addr)
	}
	return tr
}
