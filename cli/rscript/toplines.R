## ---- Toplines (docs/statistics.md#toplines) -------------------------------

conditions <- c("trigger", "cancel", "negation", "strengthen", "neutral")
types <- c("scalar", "discourse", "synthetic", "natural")

settings <- read_data("settings.csv")
setting <- function(name) as.integer(settings$value[settings$setting == name])
high_pass <- setting("high_pass_at_least")
low_pass <- setting("low_pass_at_most")
max_failed <- setting("excluded_when_failed_at_least")
# The conditions the study declares (docs/studies.md#conditions): the
# measures of the others are not reported.
declared_value <- settings$value[settings$setting == "conditions"]
declared <- if (length(declared_value)) strsplit(declared_value, " ", fixed = TRUE)[[1]] else conditions

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
# (A file of attention checks only, or with nobody analysed, has no item
# mean: every cell stays NA and every topline undefined.)
item_means <- matrix(NA_real_, nrow = length(item_ids), ncol = length(conditions), dimnames = list(item_ids, conditions))
# item_n and item_ss: the ratings per item and condition and the sum of
# squared deviations of their z-scores from the mean (the rating noise of
# the mean, for the correction for attenuation).
item_n <- matrix(0, nrow = length(item_ids), ncol = length(conditions), dimnames = list(item_ids, conditions))
item_ss <- item_n
if (nrow(analysed) > 0 && length(item_ids) > 0) {
  by_cell <- list(factor(analysed$item_id, levels = item_ids), factor(analysed$condition, levels = conditions))
  item_means[] <- tapply(analysed$z, by_cell, mean)
  item_n[] <- tapply(analysed$z, by_cell, length, default = 0)
  item_ss[] <- tapply(analysed$z, by_cell, function(z) sum((z - mean(z))^2), default = 0)
}

# a beyond b: mean z-scores closer than 1e-12 count as equal.
above <- function(a, b) a - b > 1e-12
share <- function(ok, hit) if (any(ok)) sum(hit[ok]) / sum(ok) else NA

# disattenuated: Spearman's correction of r between x and y for the rating
# noise of the item means (docs/statistics.md#disattenuated-correlation):
# reliability 1 - (pooled within-cell variance × mean(1/n)) / var(means),
# r / sqrt(rel_T rel_C), capped at ±1, NA when a reliability is 0 or less.
disattenuated <- function(x, y, nT, nC, ssT, ssC) {
  if (length(x) < 3 || var(x) <= 0 || var(y) <= 0 || sum(nT - 1) <= 0 || sum(nC - 1) <= 0) return(c(NA, NA, NA))
  relT <- 1 - sum(ssT) / sum(nT - 1) * mean(1 / nT) / var(x)
  relC <- 1 - sum(ssC) / sum(nC - 1) * mean(1 / nC) / var(y)
  r <- if (relT > 0 && relC > 0) max(-1, min(1, cov(x, y) / sqrt(var(x) * relT * var(y) * relC))) else NA
  c(r, relT, relC)
}

toplines_of <- function(m, nn, ss) {
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
  dis <- disattenuated(x, y, nn[both, "trigger"], nn[both, "cancel"], ss[both, "trigger"], ss[both, "cancel"])
  if (is.na(r)) dis[1] <- NA
  v <- c(items = nrow(m),
    implicature_recognition = share(hasT, above(zT, 0)),
    cancellation_recognition = share(both, above(zT, zC)),
    belief_update = share(both, above(zT, 0) & above(zT, zC)),
    negation_cancellation = share(hasT & !is.na(zN), above(zT, zN)),
    strengthening = share(hasT & !is.na(zS), above(zS, zT)),
    unchanged = share(hasT & !is.na(zU), above(zU, 0) == above(zT, 0)),
    pearson_r = r, pearson_p = p, pearson_n = length(x),
    pearson_r_disattenuated = dis[1], reliability_trigger = dis[2], reliability_cancel = dis[3])
  control <- c(negation_cancellation = "negation", strengthening = "strengthen", unchanged = "neutral")
  v[!(names(v) %in% names(control)[!(control %in% declared)])]
}

groups <- c(types, "all")
toplines <- do.call(rbind, lapply(groups, function(g) {
  keep <- if (g == "all") rep(TRUE, length(item_ids)) else item_type == g
  v <- toplines_of(item_means[keep, , drop = FALSE], item_n[keep, , drop = FALSE], item_ss[keep, , drop = FALSE])
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
# participants and items (docs/statistics.md#reproducing-in-r). The model
# is fitted to the design: a factor with a single level is dropped from the
# formula, and a random intercept is kept only for a grouping factor with
# at least 3 levels (clmm's rule) while the ratings outnumber the random
# effects. Where the mixed model does not converge the script falls back in
# steps, each printed, down to the simplest model that converges, and says
# which model the numbers come from. A step with more parameters than
# ratings is not fitted; when even the simplest has, no model is.

# The CPU seconds one fitting step may take before the next is tried.
step_cpu_limit <- 600

if (!requireNamespace("ordinal", quietly = TRUE)) {
  message("\nThe ordinal package is not installed: the mixed model is skipped (install.packages(\"ordinal\")).")
} else {
  d <- data.frame(rating = analysed$rating,
                  condition = droplevels(factor(analysed$condition, levels = conditions)),
                  type = droplevels(factor(analysed$item_type, levels = types)),
                  participant = factor(analysed$participant_id),
                  item = factor(analysed$item_id))
  cat("\n== Cumulative link mixed model ==\n")
  cat("Data:", nrow(d), "ratings of", nlevels(d$participant), "participants on", nlevels(d$item), "items\n")
  fixed <- c(if (nlevels(d$condition) > 1) "condition", if (nlevels(d$type) > 1) "type")
  fixed_rhs <- if (length(fixed) > 0) paste(fixed, collapse = " * ") else "1"
  # Random intercepts the design supports: 3 or more groups, and more
  # ratings than random effects (else each rating would have its own).
  grouping <- c(participant = nlevels(d$participant), item = nlevels(d$item))
  grouping <- grouping[grouping > 2]
  while (length(grouping) > 0 && sum(grouping) >= nrow(d)) grouping <- grouping[-which.max(grouping)]
  dropped <- setdiff(c("participant", "item"), names(grouping))
  for (g in dropped) {
    n <- nlevels(d[[g]])
    if (n > 2) cat(sprintf("No random intercept for %ss: %d %ss and %d ratings leave too few ratings per random effect.\n", g, n, g, nrow(d)))
    else if (n > 0) cat(sprintf("No random intercept for %ss: %d %s (a random intercept needs 3 or more).\n", g, n, if (n == 1) g else paste0(g, "s")))
  }
  formula_of <- function(terms) as.formula(paste("ordered(rating) ~", paste(c(fixed_rhs, terms), collapse = " + ")))
  random_terms <- sprintf("(1 | %s)", names(grouping))

  # Starting values: the random-intercept SDs from the spread of
  # participants' and items' mean ratings, put on the logit scale by the
  # residual SD (π/√3 over the SD of a rating around its condition's
  # mean); the thresholds and fixed effects from clm, which estimates them
  # averaged over the random effects, so scaled up to the conditional scale
  # by √(1 + 0.346 Σ SD²) (the logistic-normal approximation, 0.346 =
  # (16√3 / 15π)²).
  start_sd <- function(g) {
    x <- as.numeric(d$rating)
    res <- x - ave(x, d$condition)
    k <- (pi / sqrt(3)) / max(sd(res), 1e-6)
    max(0.05, sd(tapply(res, d[[g]], mean)) * k)
  }
  start_of <- function(groups) {
    sds <- vapply(groups, start_sd, 0)
    fe <- coef(ordinal::clm(formula_of(character(0)), data = d))
    list(fe * sqrt(1 + 0.346 * sum(sds^2)), sds)
  }

  # fit_crossed fits clmm's model, by clmm's own Laplace likelihood, for
  # crossed random intercepts, where ordinal's fitting does not finish in
  # bounded time: its nlminb takes finite-difference gradients of a
  # likelihood whose inner solve for the random effects' modes stops at
  # |gradient| < 1e-4 and starts from zero each time, so the gradients are
  # noise and nlminb wanders (150 iterations, 7,125 evaluations, no
  # convergence on 12,000 ratings); its Hessian then takes 1,459 more
  # evaluations. Here the same likelihood (ordinal's getNLA on the model
  # environment clmm(doFit = FALSE) builds) is minimised by nlminb with
  # the modes solved to 1e-10 and started from the last evaluation's; the
  # gradient (central differences) and the Hessian (forward differences
  # of step 1e-3, diagonal central: 406 evaluations for 27 parameters)
  # are computed at the optimum, over the parameters not on the boundary
  # (an SD below 1e-3), as clmm does, with up to three Newton steps where
  # the scaled gradient is not yet below the tolerance. The clmm object
  # reported is then made by clmm itself at the optimum (no iteration),
  # carrying this gradient and Hessian, so summary() gives its standard
  # errors.
  fit_crossed <- function(f, start) {
    ctl <- ordinal::clmm.control(method = "nlminb", gradTol = 1e-10, innerCtrl = "noWarn")
    rho <- ordinal::clmm(f, data = d, start = start, doFit = FALSE, control = ctl)
    # clmm orders the random terms its own way: the start SDs follow it.
    re <- names(rho$dims$nlev.re)
    if (!identical(re, names(start[[2]]))) {
      start[[2]] <- start[[2]][re]
      rho <- ordinal::clmm(f, data = d, start = start, doFit = FALSE, control = ctl)
    }
    nla <- get("getNLA", envir = asNamespace("ordinal"))
    fn <- function(p) {
      v <- nla(rho, p)
      if (is.finite(v)) rho$uStart <- rho$u
      v
    }
    nfe <- length(start[[1]])
    # nlminb works on the SDs' logarithms, in coordinates where the
    # Hessian at the start is the identity (its Cholesky factor, by
    # differences; the diagonal where it is not positive definite), so
    # its quasi-Newton steps are close to Newton's from the first.
    y0 <- c(start[[1]], log(start[[2]]))
    p_of <- function(y) c(y[1:nfe], exp(y[-(1:nfe)]))
    fy <- function(y) fn(p_of(y))
    # (That Hessian only shapes the steps: its modes are solved to 1e-6.)
    rho$ctrl$gradTol <- 1e-6
    H0 <- fd_derivatives(fy, y0, rep(TRUE, length(y0)))$H
    rho$ctrl$gradTol <- 1e-10
    R <- tryCatch(chol(H0), error = function(e) diag(sqrt(pmax(abs(diag(H0)), 1e-6))))
    opt <- nlminb(rep(0, length(y0)), function(x) fy(y0 + backsolve(R, x)))
    p <- p_of(y0 + backsolve(R, opt$par))
    free <- c(rep(TRUE, nfe), p[-(1:nfe)] >= 1e-3)
    for (newton in 0:3) {
      gh <- fd_derivatives(fn, p, free)
      step <- tryCatch(solve(gh$H, gh$g), error = function(e) NULL)
      small <- !is.null(step) && sum(gh$g * step) >= 0 && sqrt(sum(gh$g * step)) < 0.002
      if (small || is.null(step) || newton == 3) break
      q <- p
      q[free] <- q[free] - step
      q[-(1:nfe)] <- pmax(q[-(1:nfe)], 0)
      if (!(fn(q) < fn(p))) break
      p <- q
    }
    # Newton steps that reach the tolerance after nlminb stopped short
    # count as the optimiser's success, and say so.
    if (newton > 0 && small && opt$convergence != 0) {
      opt$message <- paste0(opt$message, "; then converged by ", newton, " Newton step(s)")
      opt$convergence <- 0L
    }
    cat(sprintf("  nlminb: %d iterations (%s); %d evaluations of the likelihood in all\n",
                opt$iterations, opt$message, rho$neval))
    fit <- ordinal::clmm(f, data = d, start = list(p[1:nfe], p[-(1:nfe)]), Hess = FALSE,
                         control = ordinal::clmm.control(method = "nlminb", innerCtrl = "noWarn", iter.max = 0))
    # (That call solves the modes to clmm's usual 1e-4: the log-likelihood
    # is the one solved to 1e-10, at the same parameters.)
    fit$logLik <- -fn(p)
    fit$info$logLik <- formatC(fit$logLik, digits = 2, format = "f")
    fit$info$AIC <- formatC(-2 * fit$logLik + 2 * fit$dims$edf, digits = 2, format = "f")
    dn <- names(fit$gradient)
    fit$gradient <- setNames(gh$g, dn)
    fit$Hessian <- matrix(gh$H, length(dn), dimnames = list(dn, dn))
    fit$optRes <- opt
    fit$info$max.grad <- formatC(max(abs(gh$g)), digits = 2, format = "e")
    fit
  }
  # fd_derivatives: the gradient and Hessian of fn at p over the parameters
  # free, by differences of step h (central for the gradient and the
  # diagonal, forward for the rest).
  fd_derivatives <- function(fn, p, free, h = 1e-3) {
    idx <- which(free)
    n <- length(idx)
    f0 <- fn(p)
    shifted <- function(i, j = NULL, s = 1) {
      q <- p
      q[idx[i]] <- q[idx[i]] + s * h
      if (!is.null(j)) q[idx[j]] <- q[idx[j]] + h
      fn(q)
    }
    fp <- vapply(seq_len(n), function(i) shifted(i), 0)
    fm <- vapply(seq_len(n), function(i) shifted(i, s = -1), 0)
    H <- diag((fp - 2 * f0 + fm) / h^2, n)
    for (i in seq_len(n)[-1]) for (j in seq_len(i - 1)) {
      H[i, j] <- H[j, i] <- (shifted(i, j) - fp[i] - fp[j] + f0) / h^2
    }
    list(g = (fp - fm) / (2 * h), H = H)
  }
  # ordinal's internals the crossed fit uses; without them (another
  # version of ordinal) clmm fits on its own.
  has_internals <- exists("getNLA", envir = asNamespace("ordinal"), inherits = FALSE)

  # check describes a fit: converged when the optimiser reports success,
  # the Hessian is positive definite and the gradient scaled by the
  # Hessian's Cholesky factor is below 0.002 (lme4's criterion; the raw
  # gradient grows with the number of ratings); well defined when, on top,
  # the Hessian's condition number is below 1e4 and the ratings outnumber
  # the random effects.
  check <- function(fit) {
    code <- if (inherits(fit, "clmm")) fit$optRes$convergence else fit$convergence$code
    g <- fit$gradient
    max_grad <- max(abs(g))
    H <- fit$Hessian
    ev <- if (all(is.finite(H))) eigen(H, symmetric = TRUE, only.values = TRUE)$values else NA
    pd <- all(is.finite(ev)) && min(ev) > 0
    cond_h <- if (pd) max(ev) / min(ev) else Inf
    scaled <- if (pd) tryCatch(max(abs(backsolve(chol(H), g, transpose = TRUE))), error = function(e) Inf) else Inf
    n_re <- if (inherits(fit, "clmm")) sum(vapply(fit$ranef, length, 0L)) else 0
    converged <- isTRUE(code == 0) && pd && scaled < 0.002
    list(code = code, max_grad = max_grad, scaled = scaled, cond_h = cond_h, n_re = n_re, converged = converged,
         well_defined = converged && cond_h < 1e4 && nrow(d) > n_re)
  }

  # The parameters a step estimates: the thresholds (one fewer than the
  # ratings' distinct values), the fixed effects' columns but the
  # intercept, and one SD per random term. A step with more parameters
  # than ratings is not fitted: its numbers would be an artefact.
  n_params <- function(fixed_part, n_random = 0) {
    length(unique(d$rating)) - 1 + ncol(model.matrix(as.formula(paste("~", fixed_part)), d)) - 1 + n_random
  }

  # The steps, from the model asked for down to the simplest.
  steps <- list()
  f <- formula_of(random_terms)
  if (length(grouping) > 1 && has_internals) {
    steps[[length(steps) + 1]] <- list(label = "clmm (Laplace, nlminb with warm-started modes, started from clm)", formula = f,
      params = n_params(fixed_rhs, length(grouping)), fit = function() fit_crossed(f, start_of(names(grouping))))
  } else if (length(grouping) > 1) {
    steps[[length(steps) + 1]] <- list(label = "clmm (Laplace, nlminb, started from clm)", formula = f,
      params = n_params(fixed_rhs, length(grouping)), fit = function() ordinal::clmm(f, data = d, start = start_of(names(grouping)), control = ordinal::clmm.control(method = "nlminb")))
  }
  if (length(grouping) > 1) {
    f1 <- formula_of("(1 | participant)")
    steps[[length(steps) + 1]] <- list(label = "clmm with a random intercept for participants only", formula = f1,
      params = n_params(fixed_rhs, 1), fit = function() ordinal::clmm(f1, data = d))
  }
  if (length(grouping) == 1) {
    # One grouping factor: ordinal's own compiled fit, which takes the SD's
    # logarithm as its parameter.
    st1 <- function() {
      s <- start_of(names(grouping))
      c(s[[1]], log(s[[2]]))
    }
    for (m in c("nlminb", "ucminf")) local({
      method <- m
      steps[[length(steps) + 1]] <<- list(label = sprintf("clmm (Laplace, %s, started from clm)", method), formula = f,
        params = n_params(fixed_rhs, 1), fit = function() ordinal::clmm(f, data = d, start = st1(), control = ordinal::clmm.control(method = method)))
    })
  }
  if (nlevels(d$participant) > 1) {
    fp <- formula_of("participant")
    steps[[length(steps) + 1]] <- list(label = "clm with participant fixed effects", formula = fp,
      params = n_params(paste(fixed_rhs, "+ participant")), fit = function() ordinal::clm(fp, data = d))
  }
  f0 <- formula_of(character(0))
  steps[[length(steps) + 1]] <- list(label = "clm without participant or item effects", formula = f0,
    params = if (nrow(d) > 0) n_params(fixed_rhs) else 0, fit = function() ordinal::clm(f0, data = d))

  fit <- NULL; chosen <- NULL; tried <- character(0); total_cpu <- 0
  if (nrow(d) == 0 || length(unique(d$rating)) < 2) {
    why <- if (nrow(d) == 0) "no analysed participant rated an item" else "every analysed rating is the same value"
    cat("The model cannot be fitted:", why, "\n")
    tried <- why
  } else {
    for (k in seq_along(steps)) {
      s <- steps[[k]]
      cat(sprintf("Step %d: %s: %s\n", k, s$label, deparse(s$formula, width.cutoff = 500L)))
      if (s$params > nrow(d)) {
        why <- sprintf("%d parameters for %d ratings", s$params, nrow(d))
        cat(sprintf("  not fitted: %s (more parameters than ratings)\n", why))
        tried <- c(tried, sprintf("%s: not fitted (%s)", s$label, why))
        if (k < length(steps)) cat("  falling back to the next step\n")
        else cat("The model cannot be fitted: even the simplest model has more parameters than there are ratings.\n")
        next
      }
      cpu <- system.time(f <- tryCatch({
        setTimeLimit(cpu = step_cpu_limit, transient = TRUE)
        withCallingHandlers(s$fit(), warning = function(w) {
          cat("  R warned:", conditionMessage(w), "\n")
          invokeRestart("muffleWarning")
        })
      }, error = function(e) e))[["user.self"]]
      setTimeLimit(cpu = Inf)
      total_cpu <- total_cpu + cpu
      if (inherits(f, "error")) {
        msg <- conditionMessage(f)
        cat(sprintf("  not fitted after %.1f s of CPU: %s\n", cpu, msg))
        tried <- c(tried, sprintf("%s: not fitted (%s)", s$label, msg))
        next
      }
      ck <- check(f)
      verdict <- if (ck$converged) "converged" else "NOT converged"
      cat(sprintf("  %.1f s of CPU: optimiser code %d, max |gradient| %.3g, scaled gradient %.3g, Hessian condition number %.3g: %s\n",
                  cpu, ck$code, ck$max_grad, ck$scaled, ck$cond_h, verdict))
      tried <- c(tried, sprintf("%s: %s", s$label, verdict))
      if (ck$converged || k == length(steps)) {
        fit <- f; chosen <- s; chk <- ck
        if (ck$converged) break
      }
      if (k < length(steps)) cat("  falling back to the next step\n")
      else cat("  the last step: no simpler model to fall back to\n")
    }
  }
  if (is.null(fit)) {
    status_rows <- data.frame(measure = c("fitted", "converged", "well_defined", "model", "steps"),
                              value = c("FALSE", "FALSE", "FALSE", "none", paste(tried, collapse = "; ")))
  } else {
    s <- summary(fit)
    print(s)
    cond_text <- if (chk$well_defined) "converged, well defined"
      else if (chk$converged && chk$n_re >= nrow(d)) "converged, but the random effects outnumber the ratings (not well defined)"
      else if (chk$converged) "converged, but the Hessian is ill-conditioned (some parameters poorly identified)"
      else "NOT converged"
    cat(sprintf("\nConvergence (fitted in %.1f s of CPU, %.1f s over all steps): optimiser code %d, max |gradient| %.3g, scaled gradient %.3g, Hessian condition number %.3g, %d random effects for %d ratings: %s\n",
                cpu, total_cpu, chk$code, chk$max_grad, chk$scaled, chk$cond_h, chk$n_re, nrow(d), cond_text))
    cat(sprintf("The numbers above come from: %s, %s\n", chosen$label, deparse(chosen$formula, width.cutoff = 500L)))
    coefs <- as.data.frame(s$coefficients)
    write_data(data.frame(term = rownames(coefs), coefs, check.names = FALSE), "clmm_coefficients.csv")
    status_rows <- data.frame(
      measure = c("fitted", "converged", "optimizer_code", "max_abs_gradient", "hessian_condition",
                  "ratings", "participants", "items", "formula", "log_likelihood",
                  "well_defined", "scaled_gradient", "random_effects", "model", "steps", "cpu_seconds"),
      value = c("TRUE", chk$converged, chk$code, sprintf("%.17g", chk$max_grad), sprintf("%.17g", chk$cond_h),
                nrow(d), nlevels(d$participant), nlevels(d$item), deparse(chosen$formula, width.cutoff = 500L),
                sprintf("%.17g", as.numeric(logLik(fit))),
                chk$well_defined, sprintf("%.17g", chk$scaled), chk$n_re, chosen$label, paste(tried, collapse = "; "),
                sprintf("%.3g", total_cpu)))
    cat("\nCite the package that fitted the model, ordinal (Christensen), in the version used:\n")
    print(citation("ordinal"), style = "text")
  }
  write_data(status_rows, "clmm.csv")
}
