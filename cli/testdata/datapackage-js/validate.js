// Validates a Frictionless Data Package with datapackage-js, the npm
// implementation of the Data Package v1 spec (its profiles are in the
// package: no network): the descriptor against the data-package profile,
// then every tabular resource read row by row, each value cast to its
// field's type and checked against its constraints, the primary and
// foreign keys included. Prints what is wrong; exits 1 then.
// Usage: node validate.js DIR
const {Package} = require('datapackage')

;(async () => {
  const dir = process.argv[2]
  const dp = await Package.load(dir + '/datapackage.json', {basePath: dir})
  if (!dp.valid) {
    for (const e of dp.errors) console.log('descriptor: ' + String(e))
    process.exit(1)
  }
  let bad = 0
  for (const r of dp.resources) {
    if (!r.tabular) continue
    try {
      const rows = await r.read({keyed: true, relations: true})
      console.log(`${r.name}: ${rows.length} rows valid`)
    } catch (e) {
      bad++
      console.log(`${r.name}: ${String(e)}`)
      for (const x of (e.errors || []).slice(0, 20)) console.log('  ' + String(x))
    }
  }
  process.exit(bad ? 1 : 0)
})().catch(e => { console.log(String(e)); process.exit(1) })
