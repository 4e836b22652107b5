
## ---- Calibration against the human share (docs/statistics.md#calibration-against-the-human-share)

# The model's P(True) per unit is its probability of the points above the
# scale's midpoint (on 1-7: 5, 6, 7); the human share the share of the
# unit's ratings there. The units fall in `bins` equal-width bins over
# [0, 1] (the last closed); ECE = sum over bins of (n_b / N) |mean P(True)
# - mean human share|. The bootstrap interval is not recomputed.
bins <- setting("calibration_bins")
mid <- (points + 1) / 2
p_true <- vapply(units, function(u) sum(model$probability[model_unit == u & model$point > mid]), 0)
share <- vapply(units, function(u) mean(ratings$rating[unit_of == u] > mid), 0)
bin <- pmin(floor(p_true * bins), bins - 1) + 1
cal_rows <- data.frame(bin = "all", measure = c("items", "ece"), value = c(length(units), NA), stringsAsFactors = FALSE)
ece <- 0
for (b in seq_len(bins)) {
  inb <- bin == b
  mp <- if (any(inb)) mean(p_true[inb]) else NA
  mh <- if (any(inb)) mean(share[inb]) else NA
  if (any(inb)) ece <- ece + sum(inb) / length(units) * abs(mp - mh)
  cal_rows <- rbind(cal_rows, data.frame(bin = as.character(b), measure = c("items", "mean_model", "mean_humans"),
                                         value = c(sum(inb), mp, mh), stringsAsFactors = FALSE))
}
cal_rows$value[cal_rows$bin == "all" & cal_rows$measure == "ece"] <- ece
show(cal_rows[cal_rows$bin != "all", ], "bin", "measure", sprintf("Calibration: %d units, ECE %.4f", length(units), ece))
write_results(cal_rows, "calibration_r.csv")
compare_with_pragmalab(cal_rows, "calibration_pragmalab.csv", c("bin", "measure"))
