package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"pragmalab/domain"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
)

// domain.Roles lists the roles in the order the pages offer them.

func validateRole(role string) error {
	if role != domain.RoleOwner && role != domain.RoleViewer {
		return domain.Errorf(domain.EINVALID, "role must be %s or %s, not %q", domain.RoleOwner, domain.RoleViewer, role)
	}
	return nil
}

// validateCredentials checks a username and a new password.
func validateCredentials(username, password string) error {
	if username == "" || utf8.RuneCountInString(username) > 64 || strings.ContainsAny(username, " \t\r\n") {
		return domain.Errorf(domain.EINVALID, "username must be 1–64 characters without spaces")
	}
	if err := domain.CheckText("username", username, 64, domain.OneLine); err != nil {
		return err
	}
	if n := len(password); n < 10 || n > 72 {
		return domain.Errorf(domain.EINVALID, "password must be 10–72 bytes long")
	}
	return nil
}

// CreateAdmin adds an owner with a bcrypt hash of password.
func (db *DB) CreateAdmin(ctx context.Context, username, password string) (*domain.Admin, error) {
	return db.CreateAdminWithRole(ctx, username, password, domain.RoleOwner)
}

// CreateAdminWithRole adds an admin with the given role.
func (db *DB) CreateAdminWithRole(ctx context.Context, username, password, role string) (*domain.Admin, error) {
	if err := validateCredentials(username, password); err != nil {
		return nil, err
	}
	if err := validateRole(role); err != nil {
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
			return domain.Errorf(domain.ECONFLICT, "admin %q already exists", username)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO admins (username, password_hash, role, created_at) VALUES (?, ?, ?, ?)`, username, string(hash), role, db.now())
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create admin: %w", err)
	}
	return &domain.Admin{ID: id, Username: username, Role: role, CreatedAt: db.Now()}, nil
}

// SetPassword replaces an admin's password and ends all of that admin's
// sessions, so a browser logged in with the old password is logged out.
func (db *DB) SetPassword(ctx context.Context, username, password string) error {
	if err := validateCredentials(username, password); err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	err = db.tx(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `UPDATE admins SET password_hash = ? WHERE username = ? RETURNING id`, string(hash), username).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return domain.Errorf(domain.ENOTFOUND, "no admin named %q", username)
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM admin_sessions WHERE admin_id = ?`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	return nil
}

// SetRole changes an admin's role. The last owner cannot become a viewer,
// or nobody could manage the accounts any more.
func (db *DB) SetRole(ctx context.Context, username, role string) error {
	if err := validateRole(role); err != nil {
		return err
	}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var old string
		err := tx.QueryRowContext(ctx, `SELECT role FROM admins WHERE username = ?`, username).Scan(&old)
		if errors.Is(err, sql.ErrNoRows) {
			return domain.Errorf(domain.ENOTFOUND, "no admin named %q", username)
		}
		if err != nil {
			return err
		}
		if old == domain.RoleOwner && role != domain.RoleOwner {
			var owners int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM admins WHERE role = 'owner'`).Scan(&owners); err != nil {
				return err
			}
			if owners <= 1 {
				return domain.Errorf(domain.ECONFLICT, "%s is the only owner; make another admin an owner first", username)
			}
		}
		_, err = tx.ExecContext(ctx, `UPDATE admins SET role = ? WHERE username = ?`, role, username)
		return err
	})
	if err != nil {
		return fmt.Errorf("set role: %w", err)
	}
	return nil
}

// Admins lists every admin account by username.
func (db *DB) Admins(ctx context.Context) ([]domain.Admin, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT id, username, role, created_at FROM admins ORDER BY username`)
	if err != nil {
		return nil, fmt.Errorf("admins: %w", err)
	}
	defer rows.Close()
	var out []domain.Admin
	for rows.Next() {
		var a domain.Admin
		var created string
		if err := rows.Scan(&a.ID, &a.Username, &a.Role, &created); err != nil {
			return nil, fmt.Errorf("admins: %w", err)
		}
		a.CreatedAt = parseTime(created)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("admins: %w", err)
	}
	return out, nil
}

// Authenticate returns the admin whose username and password match. A wrong
// username costs as much time as a wrong password, so neither is revealed.
func (db *DB) Authenticate(ctx context.Context, username, password string) (*domain.Admin, error) {
	var a domain.Admin
	var hash string
	err := db.read.QueryRowContext(ctx, `SELECT id, username, role, password_hash FROM admins WHERE username = ?`, username).Scan(&a.ID, &a.Username, &a.Role, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return nil, domain.Errorf(domain.EINVALID, "wrong username or password")
	}
	if err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return nil, domain.Errorf(domain.EINVALID, "wrong username or password")
	}
	return &a, nil
}

var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("not-a-real-password"), bcrypt.DefaultCost)

// AdminByID returns the admin with the given id.
func (db *DB) AdminByID(ctx context.Context, id int64) (*domain.Admin, error) {
	var a domain.Admin
	err := db.read.QueryRowContext(ctx, `SELECT id, username, role FROM admins WHERE id = ?`, id).Scan(&a.ID, &a.Username, &a.Role)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.Errorf(domain.ENOTFOUND, "no such admin")
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
