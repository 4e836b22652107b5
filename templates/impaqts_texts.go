package templates

// TI returns an IMPAQTS study text in lang (the catalog's "impaqts"
// section), falling back to English and then to the shared texts.
func TI(lang, key string) string {
	if s, ok := catalogs.Text(lang, "impaqts."+key); ok {
		return s
	}
	return T(lang, key)
}
