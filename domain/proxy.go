package domain

import (
	"net/http"
	"net/url"

	"golang.org/x/net/http/httpproxy"
)

// ProxyFunc is the proxy rule of every outgoing HTTP request (scoring
// endpoints, Prolific): HTTPS_PROXY, HTTP_PROXY and NO_PROXY (or their
// lower-case forms) read through getenv, as http.ProxyFromEnvironment reads
// them from the process. Requests to localhost are never proxied.
func ProxyFunc(getenv func(string) string) func(*url.URL) (*url.URL, error) {
	env := func(upper, lower string) string {
		if v := getenv(upper); v != "" {
			return v
		}
		return getenv(lower)
	}
	cfg := &httpproxy.Config{
		HTTPProxy:  env("HTTP_PROXY", "http_proxy"),
		HTTPSProxy: env("HTTPS_PROXY", "https_proxy"),
		NoProxy:    env("NO_PROXY", "no_proxy"),
	}
	return cfg.ProxyFunc()
}

// ProxyForRequest adapts ProxyFunc to http.Transport.Proxy.
func ProxyForRequest(getenv func(string) string) func(*http.Request) (*url.URL, error) {
	f := ProxyFunc(getenv)
	return func(r *http.Request) (*url.URL, error) { return f(r.URL) }
}
