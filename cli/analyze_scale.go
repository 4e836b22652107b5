package cli

import (
	"flag"
	"fmt"

	"pragmalab/analysis/toplines"
	"pragmalab/domain"
)

// exclusionFlags are the study's exclusion rules as the analyze commands
// that read ratings take them (docs/cli.md#analyze): the attention checks'
// thresholds, the failed checks that exclude, the researcher's overrides,
// and the scale of a file that does not name its own.
type exclusionFlags struct {
	opt              *toplines.Options
	exclude, include string
	scalePoints      int
	// designVersion is --design-version: the one design version of the
	// file read (docs/studies.md#design-versions).
	designVersion int
}

// addExclusionFlags registers the flags on fs, filling opt.
func addExclusionFlags(fs *flag.FlagSet, opt *toplines.Options) *exclusionFlags {
	e := &exclusionFlags{opt: opt}
	checkFlags(fs, &opt.HighPass, &opt.LowPass, &opt.MaxFailed, &e.exclude, &e.include)
	fs.IntVar(&e.designVersion, "design-version", 0, designVersionUsage)
	fs.IntVar(&e.scalePoints, "scale-points", 0, fmt.Sprintf("the scale (%d–%d points) of a ratings file without the scale_points column (default %d); a file with the column is read on its own scale, which must then agree", domain.MinScalePoints, domain.MaxScalePoints, domain.RatingMax))
	return e
}

// checkFlags registers the attention checks' flags on fs, with their
// defaults the values pointed to: the thresholds, the failed checks that
// exclude, and the researcher's overrides (comma-separated ids).
func checkFlags(fs *flag.FlagSet, highPass, lowPass, maxFailed *int, exclude, include *string) {
	fs.IntVar(highPass, "high-pass", *highPass, "a \"high\" attention check passes when rated at least this")
	fs.IntVar(lowPass, "low-pass", *lowPass, "a \"low\" attention check passes when rated at most this")
	fs.IntVar(maxFailed, "max-failed", *maxFailed, "exclude participants failing at least this many checks")
	fs.StringVar(exclude, "exclude", "", "comma-separated participant ids to exclude whatever their checks")
	fs.StringVar(include, "include", "", "comma-separated participant ids to keep whatever their checks")
}

// check checks the flags' ranges before the file is read, and sets the
// overrides.
func (e *exclusionFlags) check(cmd string) error {
	o := e.opt
	if o.HighPass < 1 || o.HighPass > domain.MaxScalePoints || o.LowPass < 1 || o.LowPass > domain.MaxScalePoints || o.MaxFailed < 1 {
		return usagef("analyze %s: --high-pass and --low-pass must be 1–%d, --max-failed at least 1", cmd, domain.MaxScalePoints)
	}
	if e.scalePoints != 0 && (e.scalePoints < domain.MinScalePoints || e.scalePoints > domain.MaxScalePoints) {
		return usagef("analyze %s: --scale-points must be %d–%d, got %d", cmd, domain.MinScalePoints, domain.MaxScalePoints, e.scalePoints)
	}
	if o.LowPass >= o.HighPass {
		return usagef("analyze %s: --low-pass %d must be below --high-pass %d, or a rating of %d passes both checks", cmd, o.LowPass, o.HighPass, o.HighPass)
	}
	o.Exclude, o.Include = splitIDs(e.exclude), splitIDs(e.include)
	return nil
}

// readOptions are the reader's options: the scale of a file without the
// column.
func (e *exclusionFlags) readOptions(within bool) toplines.ReadOptions {
	return toplines.ReadOptions{WithinParticipant: within, ScalePoints: e.scalePoints}
}

// onScale checks the thresholds against the scale the file was read on,
// as a study's settings are (docs/studies.md#rating-scale); check has
// already put the low one below the high one.
func (e *exclusionFlags) onScale(cmd string, rs *toplines.Ratings) error {
	n, o := rs.ScalePoints, e.opt
	if o.HighPass > n || o.LowPass > n {
		return usagef("analyze %s: --high-pass %d and --low-pass %d must lie on the file's %d-point scale (1–%d): give the study's check thresholds", cmd, o.HighPass, o.LowPass, n, n)
	}
	return nil
}
