package studies

import (
	"context"
	"fmt"

	"pragmalab/domain"
)

// The audit log's wording lives here, one home for the admin pages (the
// Audited middleware and the handlers' own sentences) and the command line
// (docs/architecture.md#studies), so the same action reads the same way
// whoever made it.

// CLIActor is the actor the audit log names for changes made with
// `pragmalab admin` and the other commands.
const CLIActor = "command line"

// The actions named alike by the admin pages and the command line.
const (
	ActionCreateAccount    = "create account"
	ActionChangeRole       = "change role"
	ActionResetPassword    = "reset password"
	ActionEndSessions      = "end sessions"
	ActionImportJobOutputs = "import job outputs"
)

// The audit log's actions for the sign-in rules, from the web or the
// command line.
const (
	ActionAllowSignIn  = "allow institutional sign-in"
	ActionRemoveSignIn = "remove institutional sign-in rule"
)

// AuditActions names the state-changing admin routes, by route pattern, for
// the log; a route missing here is logged under its method and pattern, so
// none goes unrecorded.
var AuditActions = map[string]string{
	"/admin/studies":                                                    "create study",
	"/admin/studies/design":                                             "create study from design",
	"/admin/accounts":                                                   ActionCreateAccount,
	"/admin/accounts/{admin}/role":                                      ActionChangeRole,
	"/admin/accounts/{admin}/password":                                  ActionResetPassword,
	"/admin/accounts/{admin}/sessions":                                  ActionEndSessions,
	"/admin/accounts/sign-in":                                           ActionAllowSignIn,
	"/admin/accounts/sign-in/{rule}/delete":                             ActionRemoveSignIn,
	"/admin/studies/{study}/items":                                      "import items",
	"/admin/studies/{study}/state":                                      "change study state",
	"/admin/studies/{study}/pilot":                                      "pilot link",
	"/admin/studies/{study}/items/{item}/check":                         "set attention check",
	"/admin/studies/{study}/batches":                                    "build expert batches",
	"/admin/studies/{study}/experts":                                    "invite expert",
	"/admin/studies/{study}/rounds/{round}":                             "assign round",
	"/admin/studies/{study}/review/{item}":                              "review decision",
	"/admin/studies/{study}/crowd/settings":                             "save crowd settings",
	"/admin/studies/{study}/crowd/batches":                              "build crowd batches",
	"/admin/studies/{study}/crowd/participants/{participant}/exclusion": "exclusion decision",
	"/admin/studies/{study}/crowd/participants/{participant}/trusted":   "trusted reference",
	"/admin/studies/{study}/prolific/link":                              "link Prolific study",
	"/admin/studies/{study}/prolific/check":                             "check Prolific",
	"/admin/studies/{study}/prolific/sync":                              "sync Prolific submissions",
	"/admin/studies/{study}/prolific/approve":                           "approve Prolific submissions",
	"/admin/studies/{study}/prolific/reject":                            "reject Prolific submissions",
	"/admin/studies/{study}/prolific/bonus/plan":                        "plan Prolific bonus",
	"/admin/studies/{study}/prolific/bonus/setup":                       "set up Prolific bonus",
	"/admin/studies/{study}/prolific/bonus/pay":                         "pay Prolific bonus",
	"/admin/studies/{study}/prolific/bonus/not-sent":                    "mark Prolific payment not sent",
	"/admin/studies/{study}/prolific/create":                            "create Prolific draft",
	"/admin/studies/{study}/prolific/group":                             "add Prolific participant group",
	"/admin/studies/{study}/prolific/transition":                        "Prolific study transition",
	"/admin/studies/{study}/prolific/places":                            "add Prolific places",
	"/admin/studies/{study}/prolific/screen-out":                        "screen out on Prolific",
	"/admin/studies/{study}/prolific/flags":                             "send integrity flags to Prolific",
	"/admin/studies/{study}/prolific/message/preview":                   "preview Prolific message",
	"/admin/studies/{study}/prolific/message":                           "message on Prolific",
	"/admin/studies/{study}/prolific/screening":                         "Prolific screening",
	"/admin/studies/{study}/prolific/eligible":                          "count Prolific eligible participants",
	"/admin/studies/{study}/prolific/return":                            "Prolific return request",
	"/admin/studies/{study}/prolific/test-participant":                  "Prolific test participant",
	"/admin/studies/{study}/prolific/participants.csv":                  "Prolific demographics download",
	"/admin/studies/{study}/prolific/demographics":                      "Prolific keep demographics",
	"/admin/studies/{study}/surveys":                                    "build context surveys",
	"/admin/studies/{study}/context/experts":                            "invite context expert",
	"/admin/studies/{study}/outputs":                                    "import model outputs",
	"/admin/studies/{study}/explain/settings":                           "save explanation settings",
	"/admin/studies/{study}/explain/experts":                            "invite explanation rater",
	"/admin/studies/{study}/explain/experts/{annotator}/assign":         "assign explanation screens",
	"/admin/studies/{study}/jobs":                                       "start scoring job",
	"/admin/studies/{study}/jobs/{job}/cancel":                          "cancel job",
	"/admin/studies/{study}/jobs/{job}/retry":                           "retry job",
	"/admin/studies/{study}/jobs/{job}/outputs":                         ActionImportJobOutputs,
	"/admin/studies/{study}/prompts":                                    "save prompts",
	"/admin/studies/{study}/rename":                                     "rename study",
	"/admin/studies/{study}/archive":                                    "archive or restore study",
	"/admin/studies/{study}/clone":                                      "clone study",
	"/admin/studies/{study}/delete":                                     "delete study",
	"/admin/studies/{study}/items/{item}/edit":                          "correct item",
	"/admin/studies/{study}/items/reimport":                             "upload corrected items",
	"/admin/studies/{study}/items/reimport/{upload}":                    "apply corrected items",
	"/admin/studies/{study}/people/{annotator}/rename":                  "rename expert",
	"/admin/studies/{study}/people/{annotator}/revoke":                  "revoke expert link",
	"/admin/studies/{study}/people/{annotator}/reissue":                 "re-issue expert link",
	"/admin/studies/{study}/jobs/{job}/delete":                          "delete job",
}

// AuditAccountCreated is the entry's detail for a new account.
func AuditAccountCreated(username, role string) string {
	return fmt.Sprintf("created %s as %s", username, role)
}

// AuditPasswordReset is the entry's detail for a new password.
func AuditPasswordReset(username string) string {
	return fmt.Sprintf("new password for %s; its sessions ended", username)
}

// AuditRoleChanged is the entry's detail for a change of role; from is
// the role before, "" when the caller did not read it.
func AuditRoleChanged(username, from, to string) string {
	if from == "" {
		return fmt.Sprintf("%s is now %s", username, to)
	}
	return fmt.Sprintf("%s: %s → %s", username, from, to)
}

// AuditSessionsEnded is the entry's detail for logging an account out
// everywhere.
func AuditSessionsEnded(username string) string {
	return fmt.Sprintf("ended every session of %s", username)
}

// AuditStudyArchived is the entry's detail for archiving (true) or
// restoring a study.
func AuditStudyArchived(archived bool) string {
	if archived {
		return "archived"
	}
	return "restored"
}

// AuditStudyCloned is the entry's detail for a study cloned into a new one.
func AuditStudyCloned(id int64, name string) string {
	return fmt.Sprintf("cloned into study #%d %q", id, name)
}

// AuditJobOutputsSent is the entry's detail for a generation job's outputs
// added to the rating screens of an explanation-rating study.
func AuditJobOutputsSent(n int, jobID, fromStudyID int64) string {
	return fmt.Sprintf("%d outputs of job #%d (study #%d) added to the rating screens", n, jobID, fromStudyID)
}

// AuditItemsImported is the entry's detail for an items file imported.
func AuditItemsImported(n int, filename string) string {
	return fmt.Sprintf("%d items from %s", n, filename)
}

// AuditPassagesImported is the entry's detail for an IMPAQTS-PID passage
// file imported.
func AuditPassagesImported(n int, filename string) string {
	return fmt.Sprintf("%d passages from %s", n, filename)
}

// AuditOutputsImported is the entry's detail for a file of model outputs
// imported.
func AuditOutputsImported(n int, filename string) string {
	return fmt.Sprintf("%d model outputs from %s", n, filename)
}

// Metrics reports the figures of the operator's metrics page.
func (v *Service) Metrics(ctx context.Context) (domain.Metrics, error) {
	m, err := v.db.Metrics(ctx)
	m.Replication = v.Replication()
	return m, err
}
