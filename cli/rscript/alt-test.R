## ---- The alternative annotator test (docs/statistics.md#alt-test) -------

# Calderon, Reichart and Dror (ACL 2025), as pragmalab defines it: for each
# human with at least min_items items, on the items that still have at
# least min_humans humans and an answer from the model, the human and the
# model are scored against the other humans of each item (accuracy: the
# share giving the same label; neg-rmse: minus the root mean squared
# difference, after z-scoring each annotator and the model when zscore is
# set); W_h = 1 when the human scores at least the model's, W_m = 1 when
# the model scores at least the human's (a tie, up to 1e-12 relative, wins
# for both); a one-sided one-sample t-test of W_h - W_m < epsilon per
# human; Benjamini-Yekutieli at q across the humans (p.adjust "BY");
# omega = the share of humans rejected, rho = the mean over humans of
# mean(W_m); the model passes when omega >= 0.5.

settings <- read_data("settings.csv")
setting <- function(name) settings$value[settings$setting == name]
scoring <- setting("scoring")
epsilon <- as.numeric(setting("epsilon"))
q <- as.numeric(setting("q"))
min_items <- as.integer(setting("min_items"))
min_humans <- as.integer(setting("min_humans"))
use_z <- setting("zscore") == "true"

humans <- read_data("humans.csv")
models <- read_data("models.csv")
names(humans) <- c("who", "item", "label")
names(models) <- c("who", "item", "label")

zscore_or_na <- function(x) {
  m <- mean(x)
  sd <- sqrt(max(0, mean(x^2) - m^2))
  if (sd <= 1e-12 * max(1, abs(m))) return(rep(NA_real_, length(x)))
  (x - m) / sd
}
if (scoring == "neg-rmse") {
  humans$value <- as.numeric(humans$label)
  models$value <- as.numeric(models$label)
  if (use_z) {
    humans$value <- ave(humans$value, humans$who, FUN = zscore_or_na)
    constant <- unique(humans$who[is.na(humans$value)])
    if (length(constant) > 0) cat("Left out for giving every item the same label (no z-scores):", paste(constant, collapse = ", "), "\n")
    humans <- humans[!is.na(humans$value), ]
    models$value <- ave(models$value, models$who, FUN = zscore_or_na)
  }
}

# score of answer x (a label, or a value) against the other humans' answers.
score_of <- function(x, others) {
  if (scoring == "accuracy") mean(others == x) else -sqrt(mean((others - x)^2))
}
wins <- function(sh, sm) {
  if (abs(sh - sm) <= 1e-12 * max(1, abs(sh), abs(sm))) c(1, 1) else if (sh > sm) c(1, 0) else c(0, 1)
}
t_less <- function(d) {
  n <- length(d)
  m <- mean(d)
  s <- sd(d)
  if (s == 0) return(if (m < epsilon) 0 else 1)
  pt((m - epsilon) / (s / sqrt(n)), n - 1)
}

answer <- function(df) if (scoring == "accuracy") df$label else df$value
by_item <- split(seq_len(nrow(humans)), factor(humans$item, levels = unique(humans$item)))
results <- list()
for (model in unique(models$who)) {
  mine <- models[models$who == model, ]
  mine_answer <- setNames(answer(mine), mine$item)
  keep <- names(by_item)[vapply(by_item, length, 0L) >= min_humans & names(by_item) %in% mine$item]
  per <- list()
  for (h in unique(humans$who)) {
    rows <- which(humans$who == h & humans$item %in% keep)
    if (length(rows) < min_items) next
    w <- t(vapply(rows, function(r) {
      others <- answer(humans[setdiff(by_item[[humans$item[r]]], r), ])
      wins(score_of(answer(humans[r, ]), others), score_of(mine_answer[[humans$item[r]]], others))
    }, numeric(2)))
    per[[h]] <- data.frame(annotator = h, items = length(rows), p_value = t_less(w[, 1] - w[, 2]),
                           rho_model = mean(w[, 2]), stringsAsFactors = FALSE)
  }
  per <- do.call(rbind, per)
  if (is.null(per)) {
    cat(sprintf("%s: no human can be tested\n", model))
    next
  }
  per$rejected <- p.adjust(per$p_value, method = "BY") <= q
  omega <- mean(per$rejected)
  results[[model]] <- rbind(
    data.frame(model = model, annotator = "", measure = c("winning_rate", "advantage_probability", "passed", "humans", "items"),
               value = c(omega, mean(per$rho_model), as.numeric(omega >= 0.5 && nrow(per) >= 3), nrow(per), length(keep)), stringsAsFactors = FALSE),
    data.frame(model = model, annotator = rep(per$annotator, 3), measure = rep(c("items", "p_value", "rejected"), each = nrow(per)),
               value = c(per$items, per$p_value, as.numeric(per$rejected)), stringsAsFactors = FALSE))
}
alttest <- do.call(rbind, results)
show(alttest[alttest$annotator == "", c("model", "measure", "value")], "measure", "model", "Alt-test per model")
write_results(alttest, "alttest_r.csv")
compare_with_pragmalab(alttest, "alttest_pragmalab.csv", c("model", "annotator", "measure"))
