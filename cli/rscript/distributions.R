
## ---- Distributions against the human ceiling (docs/statistics.md#distributions-against-the-human-ceiling)

settings <- read_data("settings.csv")
setting <- function(name) as.numeric(settings$value[settings$setting == name])
points <- setting("points")
splits <- setting("splits")
smoothing <- setting("kl_smoothing")
ratings <- read_data("ratings.csv")
ratings$rating <- as.integer(ratings$rating)
model <- read_data("model.csv")
model$probability <- as.numeric(model$probability)
model$point <- as.integer(model$point)

# The four distances between distributions p and q over the points 1..K:
# the Jensen-Shannon divergence in bits (the divergence, not its square
# root); KL(p || q') in bits with q' = (q + s) / (1 + K s); the Wasserstein-1
# distance over the points divided by K - 1; the total variation.
jsd <- function(p, q) {
  m <- (p + q) / 2
  part <- function(a) sum(a[a > 0] * log2(a[a > 0] / m[a > 0]))
  max(0, (part(p) + part(q)) / 2)
}
kl <- function(p, q, s) {
  i <- p > 0
  max(0, sum(p[i] * log2(p[i] * (1 + length(q) * s) / (q[i] + s))))
}
wasserstein <- function(p, q) {
  k <- length(p)
  if (k < 2) return(0)
  sum(abs(cumsum(p)[-k] - cumsum(q)[-k])) / (k - 1)
}
measures <- c("jsd", "kl", "wasserstein", "tv")
distances <- function(p, q) c(jsd = jsd(p, q), kl = kl(p, q, smoothing), wasserstein = wasserstein(p, q), tv = sum(abs(p - q)) / 2)
histogram <- function(r) tabulate(r, points) / length(r)

# The humans' ceiling: the mean distance between the histograms of two
# halves of a unit's humans (floor(n/2) and the rest). With at most
# `splits` ways to choose the first half every one is averaged, exactly as
# pragmalab does; otherwise R draws its own 1,000 random halves, and its
# mean differs from pragmalab's (200 other random halves) by Monte Carlo
# error only.
ceiling_of <- function(r) {
  n <- length(r)
  if (n < 2) return(NULL)
  half <- n %/% 2
  exhaustive <- choose(n, half) <= splits
  halves <- if (exhaustive) combn(n, half, simplify = FALSE) else lapply(1:1000, function(s) sample.int(n, half))
  d <- vapply(halves, function(a) distances(histogram(r[a]), histogram(r[-a])), numeric(4))
  list(exhaustive = exhaustive, mean = rowMeans(d), se = if (exhaustive) rep(0, 4) else apply(d, 1, sd) / sqrt(ncol(d)))
}

set.seed(20251)
unit_of <- paste(ratings$item_id, ratings$condition, sep = "\r")
units <- unique(unit_of)
model_unit <- paste(model$item_id, model$condition, sep = "\r")
dist_rows <- list()
add <- function(level, item, condition, measure, value) {
  dist_rows[[length(dist_rows) + 1]] <<- data.frame(level = level, item_id = item, condition = condition,
                                                   measure = measure, value = value, stringsAsFactors = FALSE)
}
unit_table <- do.call(rbind, lapply(units, function(u) {
  r <- ratings$rating[unit_of == u]
  q <- numeric(points)
  q[model$point[model_unit == u]] <- model$probability[model_unit == u]
  d <- distances(histogram(r), q)
  ceil <- ceiling_of(r)
  data.frame(unit = u, item_id = ratings$item_id[match(u, unit_of)], condition = ratings$condition[match(u, unit_of)],
             humans = length(r), exhaustive = if (is.null(ceil)) FALSE else ceil$exhaustive,
             measure = measures, model = d,
             ceiling = if (is.null(ceil)) NA else ceil$mean, mc_se = if (is.null(ceil)) NA else ceil$se,
             stringsAsFactors = FALSE)
}))
unit_table$within <- ifelse(is.na(unit_table$ceiling), NA, as.numeric(unit_table$model <= unit_table$ceiling + 1e-12))
for (u in units) {
  ut <- unit_table[unit_table$unit == u, ]
  add("unit", ut$item_id[1], ut$condition[1], c("humans", "exhaustive"), c(ut$humans[1], as.numeric(ut$exhaustive[1])))
  for (m in measures) {
    x <- ut[ut$measure == m, ]
    add("unit", x$item_id, x$condition, paste0(m, c("_model", "_ceiling", "_within")), c(x$model, x$ceiling, x$within))
  }
}

# The means per condition (in the order the units first name them) and,
# with several conditions, over all units; the share within the ceiling is
# over the units that have one.
dist_conditions <- unique(unit_table$condition)
dist_groups <- if (length(dist_conditions) > 1) c(dist_conditions, "all") else dist_conditions
exact_groups <- character(0)
for (m in measures) for (g in dist_groups) {
  x <- unit_table[unit_table$measure == m & (g == "all" | unit_table$condition == g), ]
  has <- !is.na(x$ceiling)
  add("summary", "", g, paste0(m, c("_units", "_mean_model", "_mean_ceiling", "_within", "_within_share")),
      c(nrow(x), mean(x$model), if (any(has)) mean(x$ceiling[has]) else NA, sum(x$within[has]),
        if (any(has)) mean(x$within[has]) else NA))
  if (all(x$exhaustive | !has)) exact_groups <- union(exact_groups, g)
}
distributions <- do.call(rbind, dist_rows)
show(distributions[distributions$level == "summary", c("condition", "measure", "value")], "measure", "condition",
     "The model's distance from the humans' histograms against their split-half ceiling (means)")
write_results(distributions, "distributions_r.csv")

# Compared with pragmalab to 1e-9: every unit's humans and distances, the
# ceiling and verdict of the units whose every split was averaged, and the
# summaries of the groups made only of those. The other ceilings come from
# random splits: compared within 4 standard errors of the difference of
# the two means (R's 1,000 splits, pragmalab's `splits`).
random_unit <- distributions$level == "unit" &
  paste(distributions$item_id, distributions$condition, sep = "\r") %in% unit_table$unit[!unit_table$exhaustive] &
  grepl("_(ceiling|within)$", distributions$measure)
random_summary <- distributions$level == "summary" & !(distributions$condition %in% exact_groups) &
  grepl("_(mean_ceiling|within|within_share)$", distributions$measure)
dist_keys <- c("level", "item_id", "condition", "measure")
exact <- distributions[!random_unit & !random_summary, ]
theirs <- read_data("distributions_pragmalab.csv")
random_keys <- do.call(paste, c(distributions[random_unit | random_summary, dist_keys], sep = "\r"))
theirs <- theirs[!(do.call(paste, c(theirs[dist_keys], sep = "\r")) %in% random_keys), ]
compare_with_pragmalab(exact, "distributions_pragmalab.csv", dist_keys, theirs)
random_units <- unit_table[!unit_table$exhaustive & !is.na(unit_table$ceiling), ]
if (nrow(random_units) > 0) {
  theirs <- read_data("distributions_pragmalab.csv")
  key <- paste(theirs$level, theirs$item_id, theirs$condition, theirs$measure, sep = "\r")
  prag <- as.numeric(theirs$value[match(paste("unit", random_units$item_id, random_units$condition, paste0(random_units$measure, "_ceiling"), sep = "\r"), key)])
  sd_split <- random_units$mc_se * sqrt(1000)
  tol <- 4 * sd_split * sqrt(1 / 1000 + 1 / splits)
  off <- is.na(prag) | abs(random_units$ceiling - prag) > tol
  cat(sprintf("Ceilings from random splits: %d of %d unit x measure ceilings within 4 Monte Carlo standard errors of pragmalab's, %d not within.\n",
              sum(!off), length(off), sum(off)))
  if (any(off)) print(cbind(random_units[off, c("item_id", "condition", "measure", "ceiling")], pragmalab = prag[off]), row.names = FALSE)
} else {
  cat("Every ceiling averages every split: all compared exactly.\n")
}
