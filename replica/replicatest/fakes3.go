package replicatest

import (
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// FakeS3 is an in-process S3-compatible store, enough of the API for
// Litestream's replica client on a custom endpoint (path-style; single
// PUTs, no multipart): put, get (with ranges), head, list (v2), delete
// and batch delete. Requests signed with another access key than AccessKey
// are refused with 403 InvalidAccessKeyId, as S3 refuses bad credentials.
type FakeS3 struct {
	URL       string
	AccessKey string

	mu      sync.Mutex
	objects map[string]fakeObject // "bucket/key"
	Refused int                   // requests refused for their credentials
}

type fakeObject struct {
	data     []byte
	meta     http.Header
	modified time.Time
}

// NewFakeS3 starts a fake S3 accepting accessKey; it stops with the test.
func NewFakeS3(t testing.TB, accessKey string) *FakeS3 {
	f := &FakeS3{AccessKey: accessKey, objects: map[string]fakeObject{}}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// Keys lists the stored objects' keys under bucket.
func (f *FakeS3) Keys(bucket string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ks []string
	for k := range f.objects {
		if b, key, _ := strings.Cut(k, "/"); b == bucket {
			ks = append(ks, key)
		}
	}
	sort.Strings(ks)
	return ks
}

func s3Error(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, msg)
}

func (f *FakeS3) serve(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	if !strings.Contains(auth, "Credential="+f.AccessKey+"/") {
		f.mu.Lock()
		f.Refused++
		f.mu.Unlock()
		s3Error(w, http.StatusForbidden, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.")
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/")
	bucket, key, _ := strings.Cut(path, "/")
	q := r.URL.Query()
	switch {
	case key == "" && r.Method == http.MethodGet:
		f.list(w, bucket, q.Get("prefix"))
	case key == "" && r.Method == http.MethodPost && q.Has("delete"):
		f.deleteMany(w, r, bucket)
	case key == "" && (r.Method == http.MethodHead || r.Method == http.MethodPut):
		w.WriteHeader(http.StatusOK) // the bucket exists
	case q.Has("uploads") || q.Has("uploadId"):
		s3Error(w, http.StatusNotImplemented, "NotImplemented", "multipart uploads are not faked")
	case r.Method == http.MethodPut:
		data, err := io.ReadAll(r.Body)
		if err != nil {
			s3Error(w, http.StatusBadRequest, "IncompleteBody", err.Error())
			return
		}
		meta := http.Header{}
		for k, v := range r.Header {
			if strings.HasPrefix(strings.ToLower(k), "x-amz-meta-") {
				meta[k] = v
			}
		}
		f.mu.Lock()
		f.objects[bucket+"/"+key] = fakeObject{data: data, meta: meta, modified: time.Now().UTC()}
		f.mu.Unlock()
		w.Header().Set("ETag", fmt.Sprintf(`"%x"`, len(data)))
		w.WriteHeader(http.StatusOK)
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		f.mu.Lock()
		o, ok := f.objects[bucket+"/"+key]
		f.mu.Unlock()
		if !ok {
			s3Error(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
			return
		}
		for k, v := range o.meta {
			w.Header()[k] = v
		}
		w.Header().Set("Last-Modified", o.modified.Format(http.TimeFormat))
		w.Header().Set("ETag", fmt.Sprintf(`"%x"`, len(o.data)))
		data, status := o.data, http.StatusOK
		if rg := r.Header.Get("Range"); rg != "" && r.Method == http.MethodGet {
			var from, to int
			spec := strings.TrimPrefix(rg, "bytes=")
			a, b, _ := strings.Cut(spec, "-")
			from, _ = strconv.Atoi(a)
			to = len(data) - 1
			if b != "" {
				to, _ = strconv.Atoi(b)
			}
			to = min(to, len(data)-1)
			if from > to {
				s3Error(w, http.StatusRequestedRangeNotSatisfiable, "InvalidRange", "The requested range is not satisfiable")
				return
			}
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, to, len(data)))
			data, status = data[from:to+1], http.StatusPartialContent
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(status)
		if r.Method == http.MethodGet {
			w.Write(data)
		}
	case r.Method == http.MethodDelete:
		f.mu.Lock()
		delete(f.objects, bucket+"/"+key)
		f.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	default:
		s3Error(w, http.StatusNotImplemented, "NotImplemented", r.Method+" is not faked")
	}
}

func (f *FakeS3) list(w http.ResponseWriter, bucket, prefix string) {
	type content struct {
		Key          string
		LastModified string
		ETag         string
		Size         int
		StorageClass string
	}
	type result struct {
		XMLName     xml.Name `xml:"ListBucketResult"`
		Xmlns       string   `xml:"xmlns,attr"`
		Name        string
		Prefix      string
		KeyCount    int
		MaxKeys     int
		IsTruncated bool
		Contents    []content
	}
	res := result{Xmlns: "http://s3.amazonaws.com/doc/2006-03-01/", Name: bucket, Prefix: prefix, MaxKeys: 100000}
	f.mu.Lock()
	for k, o := range f.objects {
		b, key, _ := strings.Cut(k, "/")
		if b == bucket && strings.HasPrefix(key, prefix) {
			res.Contents = append(res.Contents, content{Key: key, LastModified: o.modified.Format("2006-01-02T15:04:05.000Z"), ETag: fmt.Sprintf(`"%x"`, len(o.data)), Size: len(o.data), StorageClass: "STANDARD"})
		}
	}
	f.mu.Unlock()
	sort.Slice(res.Contents, func(i, j int) bool { return res.Contents[i].Key < res.Contents[j].Key })
	res.KeyCount = len(res.Contents)
	w.Header().Set("Content-Type", "application/xml")
	io.WriteString(w, xml.Header)
	xml.NewEncoder(w).Encode(res)
}

func (f *FakeS3) deleteMany(w http.ResponseWriter, r *http.Request, bucket string) {
	var req struct {
		Objects []struct{ Key string } `xml:"Object"`
	}
	if err := xml.NewDecoder(io.LimitReader(r.Body, 10<<20)).Decode(&req); err != nil {
		s3Error(w, http.StatusBadRequest, "MalformedXML", err.Error())
		return
	}
	var b strings.Builder
	b.WriteString(xml.Header + `<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	f.mu.Lock()
	for _, o := range req.Objects {
		delete(f.objects, bucket+"/"+o.Key)
		b.WriteString("<Deleted><Key>")
		xml.EscapeText(&b, []byte(o.Key))
		b.WriteString("</Key></Deleted>")
	}
	f.mu.Unlock()
	b.WriteString("</DeleteResult>")
	w.Header().Set("Content-Type", "application/xml")
	io.WriteString(w, b.String())
}
