/**
 * Benchmark of intent matching (docs/design.md §10: "Matching must stay fast with thousands of intents
 * (an index, not a loop of regexes)"). Run: `npx tsx bench/match-bench.ts`.
 *
 * For 10, 1,000 and 10,000 intents of 3 keywords each (single words, 2–3 word phrases, product-like
 * names, and Spanish/French/Hindi/Arabic/Chinese/Russian keywords) it times `KeywordIndex.match()`
 * per message against a naive baseline that tests one precompiled case-insensitive Unicode regex
 * with word boundaries per keyword of every intent and keeps the best. Messages: 5–30 words, half of
 * them containing a keyword. Times are per call (process.hrtime.bigint), in milliseconds, after a
 * warm-up pass. Above 1,000 intents the naive loop is timed on the first `naiveMessages` (600)
 * messages only, since it costs tens of milliseconds per message there. "same winner" cross-checks
 * that both pick the same intent. Data come from a seeded PRNG, so runs are comparable; absolute
 * numbers depend on the machine and its load (p99 is sensitive to preemption and GC).
 *
 * Target: at 10,000 intents, index p99 < 0.2 ms and ≥ 50× faster than the naive loop at p99.
 */
import { pathToFileURL } from 'node:url'
import { KeywordIndex } from '../src/main/bot/intent-matcher'
import { normalizeText } from '../src/shared/domain/keywords'
import { mulberry32 } from '../test/helpers/seeded-random'

export interface MatchBenchRow {
  intents: number
  keywords: number
  messages: number
  /** Messages the naive loop was timed on (a prefix of the same messages). */
  naiveMessages: number
  buildMs: number
  indexMedianMs: number
  indexP99Ms: number
  naiveMedianMs: number
  naiveP99Ms: number
  speedupP99: number
  speedupMedian: number
  /** Share of the naive sample where index and naive pick the same intent (or both none). */
  agreement: number
}

export interface MatchBenchOptions {
  sizes?: number[]
  messages?: number
  /** Cap on messages timed for the naive loop above 1,000 intents (default 600). */
  naiveMessages?: number
  seed?: number
  /** Print the table to stdout (default true). */
  print?: boolean
}


const DOMAIN = `pizza pasta burger salad coffee espresso latte tea juice smoothie dessert cake cookie bread
sandwich wrap soup noodles rice curry sushi taco burrito steak chicken fish vegan vegetarian gluten
menu price prices offer discount coupon voucher delivery pickup takeaway order orders booking reservation
table appointment cancel refund return exchange invoice receipt payment card cash upi paypal transfer
shipping tracking parcel courier address location directions parking hours opening closing holiday
weekend monday sunday today tomorrow tonight morning evening catalog brochure size color stock
available warranty repair service support complaint feedback review rating manager agent human
help faq contact phone email website instagram facebook app login password account signup
membership loyalty points gift wedding birthday party catering event ticket tickets seat concert
hotel room checkin checkout breakfast wifi pool spa gym massage haircut manicure dentist doctor
clinic pharmacy prescription insurance loan rent apartment house visit tour course class lesson
exam fees admission school college job vacancy resume interview salary internship`
  .split(/\s+/)
  .filter(Boolean)

const FOREIGN = [
  // Spanish, Portuguese, French (with accents)
  'menú', 'precio', 'envío', 'reservación', 'cumpleaños', 'horário', 'promoção', 'cardápio', 'café',
  'réservation', 'livraison', 'fermé', 'déjeuner', 'crème brûlée', 'pedido rápido', 'preço especial',
  // Hindi
  'नमस्ते', 'मेनू', 'कीमत', 'ऑर्डर', 'डिलीवरी', 'समय', 'धन्यवाद', 'बुकिंग', 'छूट', 'पता',
  // Arabic
  'مرحبا', 'السعر', 'القائمة', 'توصيل', 'طلب', 'حجز', 'شكرا', 'العنوان', 'خصم',
  // Chinese
  '你好', '菜单', '价格', '外卖', '订餐', '预约', '地址', '优惠', '营业时间',
  // Russian
  'привет', 'цена', 'меню', 'доставка', 'заказ', 'скидка'
]

const FILLER = `i you we they he she it a an the is are was were be been am do does did can could would
should will shall may might must have has had my your our their his her its me us them this that
these those there here what when where why how who which please thanks thank hello hey ok okay yes
no not just really very so too also still yet already again about with for from into onto over
under after before while because if then than but and or nor as at by of on in to up down out
off want need like know think see look get got make made go going come came tell told say said
ask asked give gave send sent find found try tried call wait waiting soon later now sure maybe
little much many more most some any every all each few other another same different new old good
great nice fine bad better best right wrong first last next long short big small early late
quick slow friend friends family guys lol haha sorry excuse hi dear sir madam brother sister`
  .split(/\s+/)
  .filter((w) => w && !DOMAIN.includes(w))

const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'zen', 'tor', 'vik', 'mel', 'san', 'do', 'bri', 'qua', 'nex', 'ola', 'fin', 'tru']

interface Dataset {
  intents: { id: string; keywords: string[]; order: number }[]
  messages: string[]
}

export function makeDataset(intentCount: number, messageCount: number, seed: number): Dataset {
  const rnd = mulberry32(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
  // Product/brand names: what a catalog of thousands of intents is made of.
  const productName = () =>
    Array.from({ length: 2 + Math.floor(rnd() * 2) }, () => pick(SYLLABLES)).join('') + (rnd() < 0.3 ? ` ${2 + Math.floor(rnd() * 20)}` : '')
  const keyword = (): string => {
    const r = rnd()
    if (r < 0.2) return pick(DOMAIN)
    if (r < 0.35) return pick(FOREIGN)
    if (r < 0.6) return `${pick(DOMAIN)} ${pick(DOMAIN)}`
    if (r < 0.7) return `${pick(DOMAIN)} ${pick(['for', 'of', 'to', 'with'])} ${pick(DOMAIN)}`
    if (r < 0.9) return productName()
    return `${pick(DOMAIN)} ${productName()}`
  }
  const intents = Array.from({ length: intentCount }, (_, i) => ({
    id: `intent-${i}`,
    keywords: [keyword(), keyword(), keyword()],
    order: i
  }))
  const cap = (w: string) => (rnd() < 0.15 ? w[0]!.toUpperCase() + w.slice(1) : w)
  const messages = Array.from({ length: messageCount }, () => {
    const n = 5 + Math.floor(rnd() * 26)
    const words = Array.from({ length: n }, () => cap(pick(FILLER)))
    if (rnd() < 0.5) {
      const k = pick(pick(intents).keywords)
      words.splice(Math.floor(rnd() * words.length), 1, rnd() < 0.2 ? k.toUpperCase() : k)
    }
    let text = words.join(' ')
    if (rnd() < 0.5) text += pick(['?', '!', '.', ' 🙏', '!!', ' 👍'])
    return text
  })
  return { intents, messages }
}

/** The loop DESIGN rules out: one boundary regex per keyword, every intent tested per message. */
class NaiveMatcher {
  private readonly rules: { id: string; order: number; keyword: string; length: number; re: RegExp }[] = []

  constructor(intents: Dataset['intents']) {
    for (const it of intents) {
      for (const raw of it.keywords) {
        const keyword = normalizeText(raw)
        const escaped = keyword.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')
        this.rules.push({
          id: it.id,
          order: it.order,
          keyword,
          length: [...keyword].length,
          re: new RegExp(`(?<![\\p{L}\\p{M}\\p{N}_])${escaped}(?![\\p{L}\\p{M}\\p{N}_])`, 'iu')
        })
      }
    }
  }

  match(text: string): string | null {
    const msg = normalizeText(text)
    let best: (typeof this.rules)[number] | null = null
    let bestExact = false
    for (const r of this.rules) {
      if (!r.re.test(msg)) continue
      const exact = msg === r.keyword
      if (
        !best ||
        (exact && !bestExact) ||
        (exact === bestExact && (r.length > best.length || (r.length === best.length && r.order < best.order)))
      ) {
        best = r
        bestExact = exact
      }
    }
    return best?.id ?? null
  }
}

/** Times `fn` on each message; returns the sorted times (ms) and the results in message order. */
function timeEach<R>(messages: readonly string[], fn: (m: string) => R): { sorted: Float64Array; results: R[] } {
  const times = new Float64Array(messages.length)
  const results: R[] = new Array(messages.length)
  for (let i = 0; i < messages.length; i++) {
    const t0 = process.hrtime.bigint()
    results[i] = fn(messages[i]!)
    times[i] = Number(process.hrtime.bigint() - t0) / 1e6
  }
  return { sorted: times.sort(), results }
}

const quantile = (sorted: Float64Array, q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

/** Runs the benchmark and returns one row per size; prints a table unless `print: false`. */
export function runMatchBench(options: MatchBenchOptions = {}): MatchBenchRow[] {
  const sizes = options.sizes ?? [10, 1_000, 10_000]
  const messageCount = options.messages ?? 3_000
  const naiveCap = options.naiveMessages ?? 600
  const rows: MatchBenchRow[] = []
  for (const size of sizes) {
    const data = makeDataset(size, messageCount, (options.seed ?? 20260605) + size)

    const b0 = process.hrtime.bigint()
    const index = new KeywordIndex<string>()
    for (const it of data.intents) index.add(it.id, it.keywords, it.order, it.id)
    const buildMs = Number(process.hrtime.bigint() - b0) / 1e6
    for (const m of data.messages) index.match(m) // warm-up: JIT, ICU segmenter caches
    const idx = timeEach(data.messages, (m) => index.match(m)?.entryId ?? null)

    // The naive loop costs milliseconds per message at 10,000 intents; a capped sample keeps the
    // run short. Its first call compiles every regex, so warm it up too.
    const naive = new NaiveMatcher(data.intents)
    const sample = size > 1_000 ? data.messages.slice(0, naiveCap) : data.messages
    for (const m of sample.slice(0, 20)) naive.match(m)
    const nai = timeEach(sample, (m) => naive.match(m))

    let same = 0
    for (let i = 0; i < sample.length; i++) if (idx.results[i] === nai.results[i]) same++
    rows.push({
      intents: size,
      keywords: data.intents.length * 3,
      messages: data.messages.length,
      naiveMessages: sample.length,
      buildMs,
      indexMedianMs: quantile(idx.sorted, 0.5),
      indexP99Ms: quantile(idx.sorted, 0.99),
      naiveMedianMs: quantile(nai.sorted, 0.5),
      naiveP99Ms: quantile(nai.sorted, 0.99),
      speedupP99: quantile(nai.sorted, 0.99) / quantile(idx.sorted, 0.99),
      speedupMedian: quantile(nai.sorted, 0.5) / quantile(idx.sorted, 0.5),
      agreement: same / sample.length
    })
  }
  if (options.print !== false) printTable(rows)
  return rows
}

function printTable(rows: MatchBenchRow[]): void {
  const f = (ms: number) => ms.toFixed(4)
  const lines = [
    '| intents | keywords | build ms | index median | index p99 | naive median | naive p99 | naive n | speed-up median | speed-up p99 | same winner |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.intents} | ${r.keywords} | ${r.buildMs.toFixed(1)} | ${f(r.indexMedianMs)} | ${f(r.indexP99Ms)} | ` +
        `${f(r.naiveMedianMs)} | ${f(r.naiveP99Ms)} | ${r.naiveMessages} | ${r.speedupMedian.toFixed(1)}× | ${r.speedupP99.toFixed(1)}× | ` +
        `${(r.agreement * 100).toFixed(1)}% |`
    )
  ]
  console.log(
    `match() per message in ms; index timed on ${rows[0]?.messages ?? 0} messages of 5–30 words, half with a keyword`
  )
  console.log(lines.join('\n'))
  const last = rows[rows.length - 1]
  if (last) {
    const ok = last.indexP99Ms < 0.2 && last.speedupP99 >= 50
    console.log(`target at ${last.intents} intents: index p99 < 0.2 ms and ≥ 50× naive at p99 → ${ok ? 'met' : 'NOT met'}`)
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) runMatchBench()
