## ---- Judgement by condition (docs/statistics.md#judgement-by-condition) ---

settings <- read_data("settings.csv")
setting <- function(name) settings$value[settings$setting == name]
scale_points <- as.integer(setting("scale_points"))
reference <- setting("reference")
conditions <- read_data("conditions_order.csv")$condition

ratings <- read_data("ratings.csv")
ratings$rating <- as.integer(ratings$value)
# The exclusions are pragmalab's (the participant_status of each row: the
# attention checks and the researcher's decisions); a participant with
# item ratings is then analysed, and has z-scores unless every rating is
# the same.
rows <- ratings[ratings$check == "" & ratings$participant_status %in% c("analysed", "zero_variance"), ]
rows$condition <- factor(rows$condition, levels = conditions)
pmean <- ave(rows$rating, rows$participant_id)
# Population SD: the root of the mean squared deviation.
psd <- sqrt(ave((rows$rating - pmean)^2, rows$participant_id))
rows$z <- ifelse(psd > 0, (rows$rating - pmean) / psd, NA)
status_r <- tapply(psd > 0, rows$participant_id, all)

# twoway_var is the two-way cluster-robust variance of a statistic from
# its rows' influences psi (Cameron, Gelbach & Miller 2011): clustered by
# participant, plus by item, minus by participant x item cell, each sum
# of squared cluster sums times G/(G-1); where that is not positive, the
# larger of the two one-way variances.
twoway_var <- function(psi, p, i) {
  part <- function(g) {
    s <- tapply(psi, g, sum)
    G <- length(s)
    if (G < 2) return(0)
    G / (G - 1) * sum(s^2)
  }
  vp <- part(p); vi <- part(i); vpi <- part(paste(p, i, sep = "\r"))
  v <- vp + vi - vpi
  if (!(v > 0)) v <- max(vp, vi)
  v
}

# interval: estimate, SE and the 95 % interval with t(min(P, I) - 1).
interval <- function(theta, psi, p, i) {
  G <- min(length(unique(p)), length(unique(i)))
  if (G < 2) return(c(theta, NA, NA, NA))
  v <- twoway_var(psi, p, i)
  if (!(v > 0)) return(c(theta, NA, NA, NA))
  half <- qt(0.975, G - 1) * sqrt(v)
  c(theta, sqrt(v), theta - half, theta + half)
}

results <- data.frame(condition = character(0), versus = character(0), measure = character(0), value = character(0))
add <- function(cond, versus, measure, value) {
  results[nrow(results) + 1, ] <<- list(cond, versus, measure, if (is.na(value)) "" else sprintf("%.17g", value))
}
add_est <- function(cond, versus, name, e) {
  add(cond, versus, name, e[1])
  add(cond, versus, paste0(name, "_se"), e[2])
  if (!is.na(e[3])) {
    add(cond, versus, paste0(name, "_ci95_low"), e[3])
    add(cond, versus, paste0(name, "_ci95_high"), e[4])
  }
}
add("", "", "participants_total", length(unique(ratings$participant_id)))
add("", "", "participants_analysed", length(unique(rows$participant_id)))
add("", "", "participants_excluded", length(unique(ratings$participant_id[ratings$participant_status == "excluded"])))
add("", "", "participants_zero_variance", sum(!status_r))

for (cond in conditions) {
  d <- rows[rows$condition == cond, ]
  add(cond, "", "ratings", nrow(d))
  add(cond, "", "participants", length(unique(d$participant_id)))
  add(cond, "", "items", length(unique(d$item_id)))
  if (nrow(d) > 0) {
    m <- mean(d$rating)
    add_est(cond, "", "mean_rating", interval(m, (d$rating - m) / nrow(d), d$participant_id, d$item_id))
  } else add(cond, "", "mean_rating", NA)
  dz <- d[!is.na(d$z), ]
  add(cond, "", "z_ratings", nrow(dz))
  if (nrow(dz) > 0) {
    m <- mean(dz$z)
    add_est(cond, "", "mean_z", interval(m, (dz$z - m) / nrow(dz), dz$participant_id, dz$item_id))
  } else add(cond, "", "mean_z", NA)
  counts <- tabulate(d$rating, nbins = scale_points)
  for (k in seq_len(scale_points)) add(cond, "", paste0("count_", k), counts[k])
}

# A difference: the coefficient of the condition in lm() with participant
# and item effects, or, where the two conditions share no participant (no
# item), without that effect; the influences are the residualised
# indicator times the residuals over its sum of squares.
difference <- function(d, x) {
  d <- d[!is.na(d[[x]]), ]
  d$ind <- as.numeric(d$condition == d$cond_a)
  d$participant <- factor(d$participant_id)
  d$item <- factor(d$item_id)
  base <- sum((d$ind - mean(d$ind))^2)
  for (rhs in list(c("participant", "item"), "item", "participant", character(0))) {
    fe <- if (length(rhs)) paste("+", paste(rhs, collapse = " + ")) else ""
    dt <- residuals(lm(as.formula(paste("ind ~ 1", fe)), data = d))
    sdd <- sum(dt^2)
    if (!(sdd > 1e-9 * base)) next
    yt <- residuals(lm(as.formula(paste(x, "~ 1", fe)), data = d))
    delta <- sum(dt * yt) / sdd
    return(interval(delta, dt * (yt - delta * dt) / sdd, d$participant_id, d$item_id))
  }
  c(NA, NA, NA, NA)
}
pairs <- if (length(reference) == 1 && reference != "") {
  lapply(setdiff(conditions, reference), function(cn) c(cn, reference))
} else {
  out <- list()
  for (a in seq_along(conditions)) for (b in seq_along(conditions)) if (b > a) out[[length(out) + 1]] <- c(conditions[b], conditions[a])
  out
}
for (pr in pairs) {
  d <- rows[rows$condition %in% pr, ]
  d$cond_a <- pr[1]
  add_est(pr[1], pr[2], "mean_rating_difference", difference(d, "rating"))
  add_est(pr[1], pr[2], "mean_z_difference", difference(d, "z"))
}

show(results[results$versus == "" & results$condition != "", c("condition", "measure", "value")], "measure", "condition", "By condition")
if (length(pairs) > 0) {
  dif <- results[results$versus != "", ]
  dif$pair <- paste(dif$condition, "-", dif$versus)
  show(dif[, c("pair", "measure", "value")], "measure", "pair", "Differences")
}
write_results(results, "conditions_r.csv")
compare_with_pragmalab(results, "conditions_pragmalab.csv", c("condition", "versus", "measure"))

## ---- Cumulative link mixed model (Christensen 2023, ordinal) -------------

# The analysed ratings, ordered: rating ~ condition with random intercepts
# for participants and items, and by-condition slopes for participants
# where the design supports them (two or more conditions, and at least 3
# participants who rated more than one condition). Each step is printed;
# where a fit fails or does not converge the next, simpler one is tried,
# and the script says which model the numbers come from.

if (!requireNamespace("ordinal", quietly = TRUE)) {
  message("\nThe ordinal package is not installed: the mixed model is skipped (install.packages(\"ordinal\")).")
} else {
  d <- data.frame(rating = rows$rating, condition = droplevels(rows$condition),
                  participant = factor(rows$participant_id), item = factor(rows$item_id))
  cat("\n== Cumulative link mixed model ==\n")
  cat("Data:", nrow(d), "ratings of", nlevels(d$participant), "participants on", nlevels(d$item), "items\n")
  fixed <- if (nlevels(d$condition) > 1) "condition" else "1"
  multi <- sum(tapply(d$condition, d$participant, function(x) length(unique(x))) > 1)
  slopes <- nlevels(d$condition) > 1 && multi >= 3
  if (nlevels(d$condition) > 1 && !slopes) cat(sprintf("No by-condition slopes: %d participants rated more than one condition (3 or more needed).\n", multi))
  f <- function(rhs) as.formula(paste("ordered(rating) ~", fixed, rhs))
  steps <- list()
  if (slopes) steps[[length(steps) + 1]] <- list(label = "clmm with by-condition slopes for participants", formula = f("+ (1 + condition | participant) + (1 | item)"), mixed = TRUE)
  if (nlevels(d$participant) > 2 && nlevels(d$item) > 2) steps[[length(steps) + 1]] <- list(label = "clmm with random intercepts for participants and items", formula = f("+ (1 | participant) + (1 | item)"), mixed = TRUE)
  if (nlevels(d$participant) > 2) steps[[length(steps) + 1]] <- list(label = "clmm with a random intercept for participants only", formula = f("+ (1 | participant)"), mixed = TRUE)
  steps[[length(steps) + 1]] <- list(label = "clm without participant or item effects", formula = f(""), mixed = FALSE)

  converged <- function(fit) {
    code <- if (inherits(fit, "clmm")) fit$optRes$convergence else fit$convergence$code
    H <- fit$Hessian
    ev <- if (!is.null(H) && all(is.finite(H))) eigen(H, symmetric = TRUE, only.values = TRUE)$values else NA
    isTRUE(code == 0) && all(is.finite(ev)) && min(ev) > 0
  }
  fit <- NULL; chosen <- NULL; tried <- character(0)
  if (nrow(d) == 0 || length(unique(d$rating)) < 2) {
    why <- if (nrow(d) == 0) "no analysed participant rated an item" else "every analysed rating is the same value"
    cat("The model cannot be fitted:", why, "\n")
    tried <- why
  } else {
    for (k in seq_along(steps)) {
      s <- steps[[k]]
      cat(sprintf("Step %d: %s: %s\n", k, s$label, deparse(s$formula, width.cutoff = 500L)))
      ft <- tryCatch(withCallingHandlers(
        if (s$mixed) ordinal::clmm(s$formula, data = d, control = ordinal::clmm.control(method = "nlminb")) else ordinal::clm(s$formula, data = d),
        warning = function(w) {
          cat("  R warned:", conditionMessage(w), "\n")
          invokeRestart("muffleWarning")
        }), error = function(e) e)
      if (inherits(ft, "error")) {
        cat("  not fitted:", conditionMessage(ft), "\n  falling back to the next step\n")
        tried <- c(tried, sprintf("%s: not fitted (%s)", s$label, conditionMessage(ft)))
        next
      }
      ok <- converged(ft)
      tried <- c(tried, sprintf("%s: %s", s$label, if (ok) "converged" else "NOT converged"))
      if (ok || k == length(steps)) {
        fit <- ft; chosen <- s
        if (ok) break
      }
      cat("  NOT converged: falling back to the next step\n")
    }
  }
  if (is.null(fit)) {
    status_rows <- data.frame(measure = c("fitted", "model", "steps"), value = c("FALSE", "none", paste(tried, collapse = "; ")))
  } else {
    s <- summary(fit)
    print(s)
    cat(sprintf("\nThe numbers above come from: %s, %s\n", chosen$label, deparse(chosen$formula, width.cutoff = 500L)))
    coefs <- as.data.frame(s$coefficients)
    write_data(data.frame(term = rownames(coefs), coefs, check.names = FALSE), "clmm_coefficients.csv")
    status_rows <- data.frame(
      measure = c("fitted", "converged", "ratings", "participants", "items", "formula", "log_likelihood", "model", "steps"),
      value = c("TRUE", converged(fit), nrow(d), nlevels(d$participant), nlevels(d$item), deparse(chosen$formula, width.cutoff = 500L),
                sprintf("%.17g", as.numeric(logLik(fit))), chosen$label, paste(tried, collapse = "; ")))
    cat("\nCite the package that fitted the model, ordinal (Christensen), in the version used:\n")
    print(citation("ordinal"), style = "text")
  }
  write_data(status_rows, "clmm.csv")
}
