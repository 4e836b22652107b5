package runner

// OpenDB is openDB for the tests outside package runner (human_test.go,
// which imports studies, which imports runner).
var OpenDB = openDB
