
## ---- The crowd's own reliability (docs/statistics.md#crowd-reliability-and-the-correlation-ceiling)

# Over the item ratings of the participants the toplines analyse: neither
# excluded nor constant raters (who have no z-scores), one rule for α and
# the split-half reliability as for the toplines: Krippendorff's α with the interval and the
# ordinal metric (Krippendorff 2011), units item × condition, per condition
# and pooled, computed by hand from the coincidence matrix (the irr
# package's kripp.alpha gives the same where it is installed); and the
# split-half reliability of the unit means of the z-scores, Spearman–Brown
# corrected, averaged over random half-splits of each unit's raters.

rel_rows <- rows[!(rows$participant_id %in% pid[status %in% c("excluded", "zero_variance")]), ]
rel_conditions <- unique(rel_rows$condition)
rel_groups <- if (length(rel_conditions) > 1) c(rel_conditions, "all") else rel_conditions
points <- max(7, rel_rows$rating)

rel_z <- ave(as.numeric(rel_rows$rating), rel_rows$participant_id,
             FUN = function(x) if (length(unique(x)) == 1) rep(NA, length(x)) else zscore(x))

split_half <- function(units, splits) {
  units <- units[vapply(units, length, 0L) >= 2]
  if (length(units) < 3) return(c(units = length(units), reliability = NA))
  r <- vapply(seq_len(splits), function(s) {
    halves <- vapply(units, function(u) {
      u <- u[sample.int(length(u))]
      h <- length(u) %/% 2
      c(mean(u[seq_len(h)]), mean(u[(h + 1):length(u)]))
    }, numeric(2))
    suppressWarnings(cor(halves[1, ], halves[2, ]))
  }, 0)
  sb <- 2 * r / (1 + r)
  rel <- mean(sb, na.rm = TRUE)
  # Halves that do not agree have no reliability to correct (pragmalab says
  # n/a): Spearman-Brown would run towards -Inf as r nears -1.
  if (is.nan(rel) || mean(r, na.rm = TRUE) <= 0 || rel <= 0) rel <- NA
  c(units = length(units), reliability = rel, mc_se = sd(sb, na.rm = TRUE) / sqrt(sum(!is.na(sb))))
}

if (nrow(rel_rows) == 0) {
  cat("\nNo item rating kept: the crowd's reliability is not computed.\n")
} else {
  set.seed(20251)
  reliability <- do.call(rbind, lapply(rel_groups, function(g) {
    keep <- if (g == "all") rep(TRUE, nrow(rel_rows)) else rel_rows$condition == g
    unit <- paste(rel_rows$item_id[keep], rel_rows$condition[keep], sep = "\r")
    unit <- factor(unit, levels = unique(unit))
    counts <- unclass(table(unit, factor(rel_rows$rating[keep], levels = 1:points)))
    z <- rel_z[keep]
    units <- split(z[!is.na(z)], unit[!is.na(z)], drop = TRUE)
    sh <- split_half(units, 1000)
    data.frame(group = g,
               measure = c("units", "ratings", "alpha_interval", "alpha_ordinal", "split_half_units", "split_half_reliability", "split_half_mc_se"),
               value = c(nrow(counts), sum(keep), kripp_alpha(counts, "interval"), kripp_alpha(counts, "ordinal"),
                         sh[["units"]], sh[["reliability"]], if (length(sh) > 2) sh[["mc_se"]] else NA),
               stringsAsFactors = FALSE)
  }))
  show(reliability[reliability$measure != "split_half_mc_se", ], "measure", "group", "The crowd's reliability (α over the ratings; split-half of the z-score means)")
  write_results(reliability, "reliability_r.csv")
  # α and the counts are exact; the split-half reliability averages random
  # splits, so R's (its own 1,000 splits) and pragmalab's differ by Monte
  # Carlo error only: compared within 4 standard errors of the two means.
  exact <- c("units", "ratings", "alpha_interval", "alpha_ordinal", "split_half_units")
  compare_with_pragmalab(reliability[reliability$measure %in% exact, ], "reliability_pragmalab.csv", c("group", "measure"))
  theirs <- read_data("split_half_pragmalab.csv")
  for (g in rel_groups) {
    mine <- reliability$value[reliability$group == g & reliability$measure == "split_half_reliability"]
    se <- reliability$value[reliability$group == g & reliability$measure == "split_half_mc_se"]
    prag <- as.numeric(theirs$value[theirs$group == g & theirs$measure == "split_half_reliability"])
    if (length(prag) == 1 && !is.na(mine) && !is.na(prag)) {
      cat(sprintf("Split-half reliability, %s: R %.4f, pragmalab %.4f, difference %.4f (%s 4 Monte Carlo standard errors, %.4f)\n",
                  g, mine, prag, abs(mine - prag), if (abs(mine - prag) <= 4 * sqrt(2) * se) "within" else "NOT within", 4 * sqrt(2) * se))
    }
  }
}
