package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
)

// Admin is a researcher who may use the admin pages.
type Admin struct {
	ID       int64
	Username string
}

// validateCredentials checks a username and a new password.
func validateCredentials(username, password string) error {
	if username == "" || utf8.RuneCountInString(username) > 64 || strings.ContainsAny(username, " \t\r\n") {
		return Errorf(EINVALID, "username must be 1–64 characters without spaces")
	}
	if n := len(password); n < 10 || n > 72 {
		return Errorf(EINVALID, "password must be 10–72 bytes long")
	}
	return nil
}

// CreateAdmin adds an admin with a bcrypt hash of password.
func (db *DB) CreateAdmin(ctx context.Context, username, password string) (*Admin, error) {
	if err := validateCredentials(username, password); err != nil {
		return nil, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return nil, fmt.Errorf("create admin: %w", err)
	}
	var id int64
	err = db.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM admins WHERE username = ?`, username).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return Errorf(ECONFLICT, "admin %q already exists", username)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO admins (username, password_hash, created_at) VALUES (?, ?, ?)`, username, string(hash), db.now())
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create admin: %w", err)
	}
	return &Admin{ID: id, Username: username}, nil
}

// SetPassword replaces an admin's password.
func (db *DB) SetPassword(ctx context.Context, username, password string) error {
	if err := validateCredentials(username, password); err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	res, err := db.write.ExecContext(ctx, `UPDATE admins SET password_hash = ? WHERE username = ?`, string(hash), username)
	if err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Errorf(ENOTFOUND, "no admin named %q", username)
	}
	return nil
}

// Authenticate returns the admin whose username and password match. A wrong
// username costs as much time as a wrong password, so neither is revealed.
func (db *DB) Authenticate(ctx context.Context, username, password string) (*Admin, error) {
	var a Admin
	var hash string
	err := db.read.QueryRowContext(ctx, `SELECT id, username, password_hash FROM admins WHERE username = ?`, username).Scan(&a.ID, &a.Username, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return nil, Errorf(EINVALID, "wrong username or password")
	}
	if err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return nil, Errorf(EINVALID, "wrong username or password")
	}
	return &a, nil
}

var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("not-a-real-password"), bcrypt.DefaultCost)

// AdminByID returns the admin with the given id.
func (db *DB) AdminByID(ctx context.Context, id int64) (*Admin, error) {
	var a Admin
	err := db.read.QueryRowContext(ctx, `SELECT id, username FROM admins WHERE id = ?`, id).Scan(&a.ID, &a.Username)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, Errorf(ENOTFOUND, "no such admin")
	}
	if err != nil {
		return nil, fmt.Errorf("admin by id: %w", err)
	}
	return &a, nil
}

// CountAdmins is the number of admins.
func (db *DB) CountAdmins(ctx context.Context) (int, error) {
	var n int
	if err := db.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM admins`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count admins: %w", err)
	}
	return n, nil
}

// SecretKey returns the random key stored under name, creating it with n
// random bytes on first use. Session-cookie keys live here so that logins
// survive a restart and no key is ever written in a config file.
func (db *DB) SecretKey(ctx context.Context, name string, n int) ([]byte, error) {
	var key []byte
	err := db.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT value FROM kv WHERE key = ?`, name).Scan(&key)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		key = make([]byte, n)
		rand.Read(key)
		_, err = tx.ExecContext(ctx, `INSERT INTO kv (key, value) VALUES (?, ?)`, name, key)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("secret key %s: %w", name, err)
	}
	return key, nil
}

// RandomToken returns an unguessable URL-safe token (256 bits).
func RandomToken() string {
	return rand.Text() + rand.Text()
}
