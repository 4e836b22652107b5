package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"pragmalab/signin"

	"pragmalab/studies"
	"pragmalab/web"
)

// runServe is `pragmalab serve`: the web application.
func runServe(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("serve", "Usage: pragmalab [serve] [options]\n\nServes the web application. On first start it creates an admin account\n(the password is printed once) and, unless --demo=false, a demo study.\n\n", env)
	addr := fs.String("addr", "localhost:8080", "address to listen on (the PORT variable overrides the port); the address listened on is printed")
	dbPath := dbFlag(fs, env)
	demo := fs.Bool("demo", true, "seed the demo data on first start")
	secure := fs.Bool("secure-cookies", env.getenv("PRAGMALAB_SECURE_COOKIES") != "", "mark cookies Secure and send HSTS (behind TLS; env PRAGMALAB_SECURE_COOKIES)")
	proxyHeader := fs.String("trusted-proxy-header", env.getenv("PRAGMALAB_TRUSTED_PROXY_HEADER"), "header a trusted reverse proxy sets to the client's address, e.g. Fly-Client-IP; only then is a header believed (env PRAGMALAB_TRUSTED_PROXY_HEADER)")
	verbose := fs.Bool("v", false, "log every request")
	entryLimit := fs.Int("entry-limit", 30, "new crowd arrivals one client address may make in 10 minutes (0: no limit, for load tests)")
	repl := addReplicaFlags(fs, env)
	publicOnly := fs.Bool("public-endpoints-only", false, "refuse model-scoring endpoints on this machine or a private network (loopback, 10/8, 172.16/12, 192.168/16, fc00::/7); link-local and cloud-metadata addresses are refused always")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	tuneGC()
	// A bad sign-in configuration is refused before anything is created:
	// no database, no first admin's password printed.
	if _, err := signin.OIDCConfigFromEnv(env.getenv); err != nil {
		return usagef("serve: %v", err)
	}
	if port := env.getenv("PORT"); port != "" {
		host, _, err := net.SplitHostPort(*addr)
		if err != nil {
			return usagef("serve: --addr %q: %v", *addr, err)
		}
		*addr = net.JoinHostPort(host, port)
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(env.stderr, &slog.HandlerOptions{Level: level}))

	target, err := repl.target(env, log)
	if err != nil {
		return err
	}
	if err := restoreIfMissing(ctx, target, *dbPath, env, log); err != nil {
		return err
	}
	svc, newServer, err := openService(ctx, *dbPath, studies.OpenOptions{Replicated: target != nil})
	if err != nil {
		return err
	}
	rep, err := startReplication(ctx, target, repl, *dbPath, env, log)
	if err != nil {
		svc.Close()
		return err
	}
	// Litestream stops after the database is closed, so it uploads the
	// last answers too.
	defer func() { svc.Close(); rep.stop(log) }()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	base := "http://" + displayAddr(ln.Addr().String())
	if err := firstStart(ctx, svc, jobRunner{svc: svc, getenv: env.getenv}, env, base, *demo); err != nil {
		ln.Close()
		return err
	}
	limit := *entryLimit
	switch {
	case limit < 0:
		return usagef("serve: --entry-limit must be 0 (no limit) or more")
	case limit == 0:
		limit = -1 // web.Config: negative is no limit
	}
	srv, err := newServer(ctx, web.Config{Log: log, SecureCookies: *secure, TrustedProxyHeader: *proxyHeader, PublicEndpointsOnly: *publicOnly, EntryLimit: limit, Replication: rep.status()})
	if err != nil {
		ln.Close()
		return err
	}
	fmt.Fprintf(env.stdout, "pragmalab is running at %s/admin (database %s). Stop it with Ctrl-C.\n", base, *dbPath)
	return srv.Serve(ctx, ln)
}

// defaultAddr is the address serve listens on without --addr: localhost,
// at the PORT variable's port, else 8080.
func defaultAddr(getenv func(string) string) string {
	port := getenv("PORT")
	if port == "" {
		port = "8080"
	}
	return net.JoinHostPort("localhost", port)
}

// defaultBase is the default --base of the commands that print links: the
// address serve listens on by default, so a server started with PORT=9000
// and `links` run with the same environment agree (docs/cli.md#links).
func defaultBase(getenv func(string) string) string {
	return "http://" + displayAddr(defaultAddr(getenv))
}

// displayAddr turns a listening address into one a browser can open.
func displayAddr(a string) string {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return a
	}
	if host == "" || host == "::" || host == "0.0.0.0" || host == "127.0.0.1" || host == "::1" {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// firstStart creates the first admin (printing its password once) and the
// demo data when the database is new; jobs runs the demo's scoring job.
func firstStart(ctx context.Context, svc *app, jobs jobRunner, env *Env, base string, demo bool) error {
	password, err := svc.signin().FirstAdmin(ctx, "admin")
	if err != nil {
		return err
	}
	if password == "" {
		fmt.Fprintf(env.stdout, "Log in with an admin account (the first one is %q; a forgotten password is reset with `pragmalab admin reset-password --username NAME --generate`).\n", "admin")
		return nil
	}
	fmt.Fprintf(env.stdout, "\nFirst start: created the admin account.\n  username: admin\n  password: %s\n(shown only this once; change it with `pragmalab admin reset-password --username admin`)\n\n", password)
	if !demo {
		return nil
	}
	return seedDemo(ctx, svc, jobs, env, base)
}
