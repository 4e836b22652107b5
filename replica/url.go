// Package replica runs Litestream beside pragmalab: continuous replication
// of the database to a file path, S3-compatible storage or an SFTP server,
// and restores from it (docs/deploy.md#replication). Litestream runs as a
// supervised child process found on PATH (docs/architecture.md#replica);
// this package writes its configuration, starts and restarts it, reads
// how far the replica has got through Litestream's control socket and its
// log, and restores with `litestream restore`.
package replica

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// Target is a checked replica URL.
type Target struct {
	// URL is what Litestream is given: no credentials in it.
	URL string
	// Scheme is file, s3 or sftp.
	Scheme string
	// Display is the URL as shown on the metrics page and in logs.
	Display string
}

// TigrisKeyword is the PRAGMALAB_REPLICA value that means "the Tigris
// bucket whose secrets Fly.io set": `fly storage create` sets BUCKET_NAME,
// AWS_ENDPOINT_URL_S3, AWS_REGION and the access keys as secrets.
const TigrisKeyword = "tigris"

// ErrNoTigrisBucket is returned by Parse for the tigris keyword when the
// Tigris secrets are not set: the server runs without a replica.
var ErrNoTigrisBucket = errors.New("PRAGMALAB_REPLICA is \"tigris\" but BUCKET_NAME is not set (run `fly storage create`): replication is off")

// Schemes are the replica kinds pragmalab runs and tests.
var Schemes = []string{"file", "s3", "sftp"}

// Parse checks a replica URL and says what is wrong with it: credentials
// are refused in the URL (they come from the environment), and so is
// anything Litestream would read differently from what was meant.
func Parse(raw string, getenv func(string) string) (Target, error) {
	raw = strings.TrimSpace(raw)
	if raw == TigrisKeyword {
		var err error
		if raw, err = tigrisURL(getenv); err != nil {
			return Target{}, err
		}
	}
	if raw == "" {
		return Target{}, errors.New("replica URL is empty")
	}
	if strings.Contains(raw, "$") {
		// Litestream expands $VARIABLES in its configuration.
		return Target{}, fmt.Errorf("replica URL %q: a $ is not allowed", raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Target{}, fmt.Errorf("replica URL %q: %v", raw, err)
	}
	check, ok := schemeChecks[u.Scheme]
	switch {
	case ok:
		display, err := check(raw, u)
		if err != nil {
			return Target{}, err
		}
		return Target{URL: raw, Scheme: u.Scheme, Display: display}, nil
	case u.Scheme == "":
		return Target{}, fmt.Errorf("replica URL %q has no scheme: use one of file://, s3://, sftp://", raw)
	default:
		return Target{}, fmt.Errorf("replica URL %q: scheme %q is not supported; use one of file://, s3://, sftp://", redact(u), u.Scheme)
	}
}

// tigrisURL is the s3:// URL of the Tigris bucket that `fly storage
// create` set in the environment, with its endpoint and region.
func tigrisURL(getenv func(string) string) (string, error) {
	bucket := getenv("BUCKET_NAME")
	if bucket == "" {
		return "", ErrNoTigrisBucket
	}
	endpoint := getenv("AWS_ENDPOINT_URL_S3")
	if endpoint == "" {
		endpoint = "https://fly.storage.tigris.dev"
	}
	region := getenv("AWS_REGION")
	if region == "" {
		region = "auto"
	}
	q := url.Values{"endpoint": {endpoint}, "region": {region}}
	return "s3://" + bucket + "/pragmalab?" + q.Encode(), nil
}

// schemeChecks holds, per supported scheme, the rules of its URL; each
// returns the form of the URL that is safe to display.
var schemeChecks = map[string]func(raw string, u *url.URL) (string, error){
	"file": checkFileURL,
	"s3":   checkS3URL,
	"sftp": checkSFTPURL,
}

// checkFileURL: a file replica is an absolute local path, nothing more.
func checkFileURL(raw string, u *url.URL) (string, error) {
	if u.Host != "" || !filepath.IsAbs(u.Path) {
		return "", fmt.Errorf("replica URL %q: a file replica needs an absolute path, e.g. file:///var/backups/pragmalab", raw)
	}
	if u.User != nil || u.RawQuery != "" {
		return "", fmt.Errorf("replica URL %q: a file replica takes only a path", raw)
	}
	return "file://" + u.Path, nil
}

// checkS3URL: a bucket and a path inside it; credentials come from the
// environment.
func checkS3URL(raw string, u *url.URL) (string, error) {
	if u.Host == "" {
		return "", fmt.Errorf("replica URL %q: name the bucket, e.g. s3://my-bucket/pragmalab", raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("replica URL %q: no credentials in the URL; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment", redact(u))
	}
	if strings.Trim(u.Path, "/") == "" {
		return "", fmt.Errorf("replica URL %q: give a path inside the bucket, e.g. s3://%s/pragmalab", raw, u.Host)
	}
	return raw, nil
}

// checkSFTPURL: a user, a host and a directory; the password or key
// comes from the environment.
func checkSFTPURL(raw string, u *url.URL) (string, error) {
	if u.Host == "" || u.User == nil || u.User.Username() == "" {
		return "", fmt.Errorf("replica URL %q: an SFTP replica needs a user and a host, e.g. sftp://backup@host.example/pragmalab", redact(u))
	}
	if _, has := u.User.Password(); has {
		return "", fmt.Errorf("replica URL %q: no password in the URL; set PRAGMALAB_REPLICA_SFTP_PASSWORD or PRAGMALAB_REPLICA_SFTP_KEY in the environment", redact(u))
	}
	if strings.Trim(u.Path, "/") == "" {
		return "", fmt.Errorf("replica URL %q: give a directory on the server, e.g. sftp://%s@%s/pragmalab", raw, u.User.Username(), u.Host)
	}
	return raw, nil
}

// redact is u without a password, for messages.
func redact(u *url.URL) string { return u.Redacted() }
