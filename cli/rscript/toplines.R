## ---- Toplines (docs/statistics.md#toplines) -------------------------------

conditions <- c("trigger", "cancel", "negation", "strengthen", "neutral")
types <- c("scalar", "discourse", "synthetic", "natural")

settings <- read_data("settings.csv")
setting <- function(name) as.integer(settings$value[settings$setting == name])
high_pass <- setting("high_pass_at_least")
low_pass <- setting("low_pass_at_most")
max_failed <- setting("excluded_when_failed_at_least")

ratings <- read_data("ratings.csv")
ratings$rating <- as.integer(ratings$rating)
participants <- read_data("participants.csv")
pid <- participants$participant_id

# Exclusion: a "high" check fails below high_pass, a "low" one above
# low_pass; failing max_failed or more excludes, unless the researcher
# included the participant; the researcher's exclusion always wins.
checks <- ratings[ratings$check != "", ]
failed_row <- (checks$check == "high" & checks$rating < high_pass) |
  (checks$check == "low" & checks$rating > low_pass)
failed <- as.vector(tapply(failed_row, factor(checks$participant_id, levels = pid), sum))
failed[is.na(failed)] <- 0
rows <- ratings[ratings$check == "", ]
n_rated <- tabulate(match(rows$participant_id, pid), nbins = length(pid))
# Constant raters (every non-check rating equal) have no z-scores.
n_distinct <- as.vector(tapply(rows$rating, factor(rows$participant_id, levels = pid), function(x) length(unique(x))))
excluded <- participants$researcher == "exclude" |
  (failed >= max_failed & participants$researcher != "include")
status <- ifelse(excluded, "excluded",
          ifelse(n_rated == 0, "checks_only",
          ifelse(n_distinct == 1, "zero_variance", "analysed")))
cat(sprintf("Participants: %d, analysed %d, excluded %d, constant ratings %d, attention checks only %d\n",
            length(pid), sum(status == "analysed"), sum(status == "excluded"),
            sum(status == "zero_variance"), sum(status == "checks_only")))
cat(sprintf("Exclusion settings: a high check passes at >= %d, a low one at <= %d; excluded when failing >= %d\n",
            high_pass, low_pass, max_failed))
disagree <- status != participants$status
if (any(disagree)) {
  warning(sprintf("%d participants have another status here than in pragmalab: %s",
                  sum(disagree), paste(pid[disagree], collapse = ", ")))
}

# Z-scores per participant with the population SD, then item means per
# condition over the analysed participants.
analysed <- rows[rows$participant_id %in% pid[status == "analysed"], ]
zscore <- function(x) (x - mean(x)) / sqrt(mean((x - mean(x))^2))
analysed$z <- ave(as.numeric(analysed$rating), analysed$participant_id, FUN = zscore)
item_ids <- unique(rows$item_id)
item_type <- rows$item_type[match(item_ids, rows$item_id)]
item_means <- tapply(analysed$z,
                     list(factor(analysed$item_id, levels = item_ids), factor(analysed$condition, levels = conditions)),
                     mean)
item_means <- matrix(item_means, nrow = length(item_ids), dimnames = list(item_ids, conditions))

# a beyond b: mean z-scores closer than 1e-12 count as equal.
above <- function(a, b) a - b > 1e-12
share <- function(ok, hit) if (any(ok)) sum(hit[ok]) / sum(ok) else NA

toplines_of <- function(m) {
  zT <- m[, "trigger"]; zC <- m[, "cancel"]; zN <- m[, "negation"]
  zS <- m[, "strengthen"]; zU <- m[, "neutral"]
  hasT <- !is.na(zT); hasC <- !is.na(zC)
  both <- hasT & hasC
  x <- zT[both]; y <- zC[both]
  r <- NA; p <- NA
  if (length(x) >= 3 && sd(x) > 0 && sd(y) > 0) {
    r <- max(-1, min(1, cor(x, y)))
    df <- length(x) - 2
    p <- if (abs(r) == 1) 0 else 2 * pt(-abs(r * sqrt(df / (1 - r^2))), df)
  }
  c(items = nrow(m),
    implicature_recognition = share(hasT, above(zT, 0)),
    cancellation_recognition = share(both, above(zT, zC)),
    belief_update = share(both, above(zT, 0) & above(zT, zC)),
    negation_cancellation = share(hasT & !is.na(zN), above(zT, zN)),
    strengthening = share(hasT & !is.na(zS), above(zS, zT)),
    unchanged = share(hasT & !is.na(zU), above(zU, 0) == above(zT, 0)),
    pearson_r = r, pearson_p = p, pearson_n = length(x))
}

groups <- c(types, "all")
toplines <- do.call(rbind, lapply(groups, function(g) {
  keep <- if (g == "all") rep(TRUE, length(item_ids)) else item_type == g
  v <- toplines_of(item_means[keep, , drop = FALSE])
  data.frame(group = g, measure = names(v), value = unname(v), stringsAsFactors = FALSE)
}))
counts <- c(total = length(pid), analysed = sum(status == "analysed"), excluded = sum(status == "excluded"),
            zero_variance = sum(status == "zero_variance"), checks_only = sum(status == "checks_only"))
toplines <- rbind(data.frame(group = "participants", measure = names(counts), value = unname(counts),
                             stringsAsFactors = FALSE), toplines)
show(toplines[toplines$group == "participants", ], "measure", "group", "Participants")
show(toplines[toplines$group != "participants", ], "measure", "group", "Toplines (shares of items; r and p between mean zT and mean zC)")
write_results(toplines, "toplines_r.csv")
compare_with_pragmalab(toplines, "toplines_pragmalab.csv", c("group", "measure"))

## ---- Cumulative link mixed model (Christensen 2023, ordinal) -------------

# The analysed participants' ratings (1-7, attention checks left out),
# modelled as ordered: condition × item type with random intercepts for
# participants and items. A factor with a single level is dropped from the
# formula, so a study with one item type (or one condition) still fits; a
# random intercept needs at least 3 groups (clmm's rule), and without any
# the model is an ordinary cumulative link model (clm).
if (!requireNamespace("ordinal", quietly = TRUE)) {
  message("\nThe ordinal package is not installed: the mixed model is skipped (install.packages(\"ordinal\")).")
} else {
  d <- data.frame(rating = analysed$rating,
                  condition = droplevels(factor(analysed$condition, levels = conditions)),
                  type = droplevels(factor(analysed$item_type, levels = types)),
                  participant = factor(analysed$participant_id),
                  item = factor(analysed$item_id))
  fixed <- c(if (nlevels(d$condition) > 1) "condition", if (nlevels(d$type) > 1) "type")
  random <- c(if (nlevels(d$participant) > 2) "(1 | participant)", if (nlevels(d$item) > 2) "(1 | item)")
  rhs <- c(if (length(fixed) > 0) paste(fixed, collapse = " * ") else "1", random)
  model <- as.formula(paste("ordered(rating) ~", paste(rhs, collapse = " + ")))
  cat("\n== Cumulative link mixed model ==\n")
  cat("Model:", deparse(model, width.cutoff = 500L), "\n")
  cat("Data:", nrow(d), "ratings of", nlevels(d$participant), "participants on", nlevels(d$item), "items\n")
  cpu <- system.time(fit <- tryCatch(
    if (length(random) > 0) ordinal::clmm(model, data = d) else ordinal::clm(model, data = d),
    error = function(e) e))[["user.self"]]
  if (inherits(fit, "error")) {
    cat("The model could not be fitted:", conditionMessage(fit), "\n")
    status_rows <- data.frame(measure = c("fitted", "converged"), value = c("FALSE", "FALSE"))
  } else {
    s <- summary(fit)
    print(s)
    # Convergence: the optimiser's code (0 = converged), the largest
    # absolute gradient at the optimum (lme4 warns above 0.002), and the
    # condition number of the Hessian (positive definite, and below 1e4 for
    # a well-defined optimum: ordinal's own rule of thumb).
    code <- if (inherits(fit, "clmm")) fit$optRes$convergence else fit$convergence$code
    max_grad <- max(abs(fit$gradient))
    ev <- eigen(fit$Hessian, symmetric = TRUE, only.values = TRUE)$values
    cond_h <- if (min(ev) > 0) max(ev) / min(ev) else Inf
    converged <- code == 0 && max_grad < 0.002 && min(ev) > 0
    cat(sprintf("\nConvergence (fitted in %.1f s of CPU): optimiser code %d, max |gradient| %.3g, Hessian condition number %.3g: %s\n",
                cpu, code, max_grad, cond_h,
                if (converged && cond_h < 1e4) "converged, well defined"
                else if (converged) "converged, but the Hessian is ill-conditioned (some parameters poorly identified)"
                else "NOT converged"))
    coefs <- as.data.frame(s$coefficients)
    write_data(data.frame(term = rownames(coefs), coefs, check.names = FALSE), "clmm_coefficients.csv")
    status_rows <- data.frame(
      measure = c("fitted", "converged", "optimizer_code", "max_abs_gradient", "hessian_condition",
                  "ratings", "participants", "items", "formula", "log_likelihood"),
      value = c("TRUE", converged, code, sprintf("%.17g", max_grad), sprintf("%.17g", cond_h),
                nrow(d), nlevels(d$participant), nlevels(d$item), deparse(model, width.cutoff = 500L),
                sprintf("%.17g", as.numeric(logLik(fit)))))
    cat("\nCite the package that fitted the model, ordinal (Christensen), in the version used:\n")
    print(citation("ordinal"), style = "text")
  }
  write_data(status_rows, "clmm.csv")
}
