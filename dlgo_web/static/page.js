// The page: a Shudan board (window.Shudan, bundled in static/shudan) driven by the server's
// game API. The server keeps each game; this page only shows it and sends the player's moves.
'use strict'
;(function () {
  const {h, render, Goban} = window.Shudan
  const COLS = 'ABCDEFGHJKLMNOPQRSTUVWXYZ'
  const MAX_HANDICAP = {9: 9, 13: 9, 19: 9}
  const MIN_VERTEX = 12 // px: a 19x19 board still fits a phone's width
  const MAX_BOARD = 960 // px: a board larger than this is no easier to play on
  const $ = id => document.getElementById(id)

  let bots = []
  let game = null // the server's JSON of the current game
  let fromSgf = false // the current game came from an uploaded record: never replace it unasked
  let hoverPv = null // the principal variation shown on the board
  let poller = null
  let newGameRequest = 0 // only the latest new-game answer is shown when several are on the way

  // --- vertices: GTP text <-> Shudan [x, y] (y = 0 is the top row) -------------------------
  function toVertex(text, size) {
    if (!text || text === 'pass' || text === 'resign') return null
    return [COLS.indexOf(text[0].toUpperCase()), size - parseInt(text.slice(1), 10)]
  }
  function toText([x, y], size) {
    return COLS[x] + (size - y)
  }
  const emptyMap = (size, value) => Array.from({length: size}, () => Array(size).fill(value))
  const otherOf = colour => (colour === 'black' ? 'white' : 'black')
  const sizeText = size => `${size}x${size}`
  // one rounding for every win rate on the page, so the bar and the table read the same
  const percent = p => `${(100 * p).toFixed(1)}%`

  // --- talking to the server ------------------------------------------------------------
  async function api(method, path, body) {
    const options = {method, headers: {}}
    if (body !== undefined) {
      options.headers['Content-Type'] = 'application/json'
      options.body = JSON.stringify(body)
    }
    const response = await fetch(path, options)
    let data = null
    try {
      data = await response.json()
    } catch (e) {
      throw new Error(`the server answered ${response.status} without JSON`)
    }
    if (!response.ok) throw new Error(data && data.error ? data.error : `HTTP ${response.status}`)
    return data
  }

  function showError(message) {
    $('error-text').textContent = message || ''
  }

  // A request about the current game; an answer about a game no longer shown is dropped.
  async function act(method, path, body) {
    const id = game && game.id
    try {
      showError('')
      const data = await api(method, path, body)
      if (game && data.id === id) update(data)
    } catch (e) {
      showError(e.message)
    }
  }

  // --- new games ----------------------------------------------------------------------
  function settings() {
    return {
      bot: $('bot').value,
      size: parseInt($('size').value, 10),
      komi: parseFloat($('komi').value),
      handicap: parseInt($('handicap').value, 10),
      colour: $('colour').value,
    }
  }

  const chosenBot = () => bots.find(b => b.name === $('bot').value)

  async function startGame(path, body, loaded) {
    const request = ++newGameRequest
    // the game left behind stops searching now instead of using the CPU to the end of its move
    if (game && game.thinking) api('POST', `/api/games/${game.id}/stop`).catch(() => {})
    $('new-game').setAttribute('aria-busy', 'true')
    try {
      showError('')
      const data = await api('POST', path, body)
      if (request !== newGameRequest) return
      fromSgf = loaded
      update(data)
      showSettingsOf(data)
    } catch (e) {
      if (request === newGameRequest) showError(e.message)
    } finally {
      if (request === newGameRequest) $('new-game').removeAttribute('aria-busy')
    }
  }

  const newGame = () => startGame('/api/games', settings(), false)

  // The bot list offers only bots that play a page size; the size list only the chosen bot's.
  function fillBots(data) {
    bots = data.bots.filter(b => b.sizes.length > 0)
    if (!bots.length) throw new Error('this server has no bot for a 9x9, 13x13 or 19x19 board')
    const all = Math.max(...bots.map(b => b.sizes.length))
    for (const bot of bots) {
      const only = bot.sizes.length < all ? ` (${bot.sizes.map(sizeText).join(', ')} only)` : ''
      $('bot').add(new Option(bot.name + only, bot.name))
    }
    $('bot').value = bots.some(b => b.name === data.default) ? data.default : bots[0].name
    fillSizes()
  }

  function fillSizes() {
    const bot = chosenBot()
    const select = $('size')
    const chosen = parseInt(select.value, 10)
    select.innerHTML = ''
    for (const size of bot.sizes) select.add(new Option(sizeText(size), String(size)))
    // the size asked for when the bot plays it, else the nearest one it does
    const nearest = bot.sizes.reduce((a, b) => (Math.abs(b - chosen) < Math.abs(a - chosen) ? b : a))
    select.value = String(bot.sizes.includes(chosen) ? chosen : nearest)
    fillHandicaps()
  }

  function fillHandicaps() {
    const size = parseInt($('size').value, 10)
    const select = $('handicap')
    const chosen = select.value
    select.innerHTML = '<option value="0">none</option>'
    for (let n = 2; n <= (MAX_HANDICAP[size] || 0); n++) select.add(new Option(String(n), String(n)))
    select.value = [...select.options].some(o => o.value === chosen) ? chosen : '0'
  }

  function describeBot() {
    const bot = chosenBot()
    if (!bot) return
    const parts = bot.sizes.map(size => `${sizeText(size)} (${bot.agents[size]})`)
    const seconds = bot.seconds_per_move[$('size').value]
    $('bot-info').textContent =
      `${bot.name} (${bot.config}) plays ${parts.join(', ')}` + (seconds ? `; up to ${seconds} s a move` : '')
  }

  // The selectors show the game on the board once it starts (an SGF brings its own size and komi).
  function showSettingsOf(g) {
    const select = (id, value) => {
      if (![...$(id).options].some(o => o.value === value)) $(id).add(new Option(id === 'size' ? sizeText(value) : value, value))
      $(id).value = value
    }
    if (chosenBot() && chosenBot().name !== g.bot && bots.some(b => b.name === g.bot)) {
      $('bot').value = g.bot
      fillSizes()
    }
    select('size', String(g.size))
    fillHandicaps()
    select('handicap', String(g.handicap))
    $('komi').value = String(g.komi)
    $('colour').value = g.human
    describeBot()
    showPending()
  }

  // What the selectors would change in a new game, in words ([] when they match this game).
  function pendingChanges() {
    if (!game) return []
    const s = settings()
    const changes = []
    if (s.bot !== game.bot) changes.push(`bot ${s.bot}`)
    if (s.size !== game.size) changes.push(sizeText(s.size))
    if (s.komi !== game.komi && !Number.isNaN(s.komi)) changes.push(`komi ${s.komi}`)
    if (s.handicap !== game.handicap) changes.push(s.handicap ? `handicap ${s.handicap}` : 'no handicap')
    if (s.colour !== game.human) changes.push(`you play ${s.colour === 'black' ? 'Black' : 'White'}`)
    return changes
  }

  function showPending() {
    const changes = pendingChanges()
    $('start').classList.toggle('pending', changes.length > 0)
    $('pending').hidden = changes.length === 0
    $('pending-text').textContent = changes.length
      ? `Next game: ${changes.join(', ')}. Press New game to start it; this game goes on until then.`
      : ''
  }

  // Nothing of the person's would be lost: the game starts over with the new settings at once.
  const humanMoved = () => game.moves.some(([who]) => who === game.human)
  function nothingToLose() {
    return !fromSgf && !game.result && !humanMoved()
  }

  function settingsChanged() {
    describeBot()
    if (!game) return
    if (pendingChanges().length && nothingToLose()) newGame()
    else showPending()
  }

  async function uploadSgf(file) {
    if (!file) return
    const text = await file.text()
    const s = settings()
    await startGame('/api/games/sgf', {sgf: text, name: file.name, bot: s.bot, colour: s.colour}, true)
    $('sgf-file').value = ''
  }

  // --- showing a game -----------------------------------------------------------------
  function update(data) {
    game = data
    hoverPv = null
    clearTimeout(poller)
    if (game.thinking) poller = setTimeout(refresh, 400)
    draw()
  }

  async function refresh() {
    if (!game) return
    const id = game.id
    try {
      const data = await api('GET', `/api/games/${id}`)
      if (game && game.id === id) update(data)
    } catch (e) {
      showError(e.message)
    }
  }

  // The search the side panel shows: the live one while the bot thinks, else the one behind
  // the bot's last move. Only the live one goes on the board: the last one was about a position
  // before the bot's move, and its visit counts on empty points would read like hints.
  const liveSearch = () => (game.thinking ? game.live : null)
  const shownSearch = () => (game.thinking ? game.live : game.analysis)

  // The candidate whose win rate the bar shows: the move the bot played, or the best so far.
  function headline(search) {
    return (search.move && search.candidates.find(c => c.move === search.move)) || search.candidates[0] || null
  }

  // The largest vertex that keeps the board and the buttons under it inside the window.
  function vertexSize(size) {
    const main = document.querySelector('main')
    const style = getComputedStyle(main)
    let width = main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
    if (style.flexDirection === 'row') {
      width -= parseFloat(style.columnGap) + parseFloat(getComputedStyle(document.querySelector('aside')).minWidth)
    }
    const column = $('board-column')
    column.style.maxWidth = `${Math.max(0, width)}px` // the buttons wrap by this width, not the board's
    const controls = $('controls')
    const below = controls.offsetHeight + parseFloat(getComputedStyle(controls).marginTop) + parseFloat(style.paddingBottom)
    const top = $('board').getBoundingClientRect().top + window.scrollY
    const space = Math.min(width, window.innerHeight - top - below, MAX_BOARD)
    // Shudan's board: the grid, a coordinate row on each side and a .15em border
    return Math.max(MIN_VERTEX, Math.floor(space / (size + 2.4)))
  }

  function boardProps() {
    const size = game.size
    const markerMap = emptyMap(size, null)
    const ghostStoneMap = emptyMap(size, null)
    const heatMap = emptyMap(size, null)
    let paintMap = emptyMap(size, 0)
    const last = game.last_move && toVertex(game.last_move.move, size)
    if (last) markerMap[last[1]][last[0]] = {type: 'circle'}
    const live = liveSearch()
    if (live && !hoverPv) {
      const most = Math.max(1, ...live.candidates.map(c => c.visits))
      for (const c of live.candidates) {
        const v = toVertex(c.move, size)
        if (!v || game.board[v[1]][v[0]] !== 0) continue
        heatMap[v[1]][v[0]] = {strength: Math.max(1, Math.round((9 * c.visits) / most)), text: String(c.visits)}
      }
    }
    if (hoverPv) {
      let sign = hoverPv.firstSign
      hoverPv.moves.forEach((text, i) => {
        const v = toVertex(text, size)
        if (v && game.board[v[1]][v[0]] === 0 && !ghostStoneMap[v[1]][v[0]]) {
          ghostStoneMap[v[1]][v[0]] = {sign}
          markerMap[v[1]][v[0]] = {type: 'label', label: String(i + 1)}
        }
        sign = -sign
      })
    }
    if ($('show-ownership').checked && game.ownership) paintMap = game.ownership
    if (game.result && game.result.dead) {
      for (const text of game.result.dead) {
        const v = toVertex(text, size)
        if (v) markerMap[v[1]][v[0]] = {type: 'cross', label: 'dead'}
      }
      if (game.ownership == null) paintMap = emptyMap(size, 0)
    }
    return {
      signMap: game.board,
      markerMap,
      ghostStoneMap,
      heatMap,
      paintMap,
      vertexSize: vertexSize(size),
      showCoordinates: true,
      coordX: x => COLS[x],
      coordY: y => size - y,
      busy: game.thinking,
      animateStonePlacement: false,
      fuzzyStonePlacement: false,
      onVertexClick: (evt, vertex) => {
        if (game && !game.thinking && !game.result) act('POST', `/api/games/${game.id}/play`, {move: toText(vertex, size)})
      },
      onVertexMouseEnter: (evt, vertex) => {
        const live = liveSearch()
        const c = live && live.candidates.find(c => c.move === toText(vertex, size))
        if (c) showPv(c)
      },
      onVertexMouseLeave: () => {
        if (hoverPv && hoverPv.fromBoard) hidePv()
      },
    }
  }

  // Every line shown is one of the bot's searches, so it starts with the bot's stone.
  function showPv(candidate, fromTable) {
    hoverPv = {moves: candidate.pv, firstSign: game.human === 'black' ? -1 : 1, fromBoard: !fromTable}
    drawBoard()
  }
  function hidePv() {
    hoverPv = null
    drawBoard()
  }

  function drawBoard() {
    if (game) render(h(Goban, boardProps()), $('board'))
  }

  function drawSearch() {
    const search = shownSearch()
    const best = search && headline(search)
    if (game.thinking) {
      $('search-title').textContent = search
        ? "Live: the bot's search for its move now (visit counts on the board)."
        : 'The bot is thinking…'
    } else if (game.analysis) {
      $('search-title').textContent =
        `The search behind the bot's last move, ${game.analysis.move}: how it chose, not hints for your move.`
    } else {
      $('search-title').textContent = 'No search behind the last move.'
    }
    if (search) {
      const p = best ? best.winrate : search.winrate
      const which = !best
        ? 'over the whole search'
        : game.thinking
          ? `for ${best.move}, its best move so far (▸ in the table)`
          : best.move === search.move
            ? `for ${best.move}, the move it played (▸ in the table)`
            : `for ${best.move}, its best candidate (▸ in the table); it played ${search.move}`
      $('winrate-bar').style.width = percent(p)
      $('winrate-text').textContent = `Bot's win rate ${percent(p)} ${which} · ${search.visits} visits, ${search.seconds} s`
    } else {
      $('winrate-bar').style.width = '0'
      $('winrate-text').textContent = game.thinking ? 'searching…' : 'no win rate: no search'
    }
    const body = $('candidates').querySelector('tbody')
    body.innerHTML = ''
    for (const c of search ? search.candidates : []) {
      const row = body.insertRow()
      if (c === best) row.className = 'headline'
      row.insertCell().textContent = c.move
      row.insertCell().textContent = String(c.visits)
      row.insertCell().textContent = percent(c.winrate)
      const pv = row.insertCell()
      pv.className = 'pv'
      pv.textContent = c.pv.join(' ')
      row.addEventListener('mouseenter', () => showPv(c, true))
      row.addEventListener('mouseleave', hidePv)
    }
  }

  function draw() {
    drawBoard()
    document.body.classList.toggle('thinking', game.thinking)
    const bot = otherOf(game.human)
    $('to-move').textContent = game.result ? 'game over' : game.to_move === game.human ? `you (${game.human})` : `the bot (${bot})`
    $('captures').textContent = `Black took ${game.captures.black}, White took ${game.captures.white}`
    $('komi-shown').textContent =
      game.handicap > 0 ? `${game.komi} (+${game.scoring_komi - game.komi} for ${game.handicap} handicap stones)` : String(game.komi)
    $('move-count').textContent = String(game.moves.length)
    $('stop').disabled = !game.thinking
    $('download').href = `/api/games/${game.id}/sgf`
    let status = game.message || ''
    if (game.thinking) status = `The bot (${game.agent}) is thinking…`
    else if (game.error) status = 'The bot could not move: start a new game' + (humanMoved() ? ', or undo your last move.' : '.')
    else if (!game.result && game.to_move === game.human) status = (status ? status + ' ' : '') + 'Your move.'
    if (game.ko && !game.result && game.to_move === game.human) status += ` Ko: you may not retake at ${game.ko} now.`
    $('status').textContent = status
    if (game.error) showError(game.error)
    // a failed search leaves the bot to move: without this the person could only undo
    $('recover').hidden = !game.error
    drawSearch()
    const r = game.result
    $('result').textContent = r
      ? `Result: ${r.result} (${r.reason})` + (r.dead ? ` · Black ${r.black}, White ${r.white} with komi; dead stones marked ✕` : '')
      : ''
    showPending()
  }

  // --- wiring ---------------------------------------------------------------------------
  $('new-game').addEventListener('submit', evt => {
    evt.preventDefault()
    newGame()
  })
  $('bot').addEventListener('change', () => {
    fillSizes()
    settingsChanged()
  })
  $('size').addEventListener('change', () => {
    fillHandicaps()
    settingsChanged()
  })
  for (const id of ['komi', 'handicap', 'colour']) $(id).addEventListener('change', settingsChanged)
  $('keep').addEventListener('click', () => game && showSettingsOf(game))
  $('recover').addEventListener('click', newGame)
  $('sgf-file').addEventListener('change', evt => uploadSgf(evt.target.files[0]))
  $('pass').addEventListener('click', () => game && act('POST', `/api/games/${game.id}/play`, {move: 'pass'}))
  $('undo').addEventListener('click', () => game && act('POST', `/api/games/${game.id}/undo`))
  $('resign').addEventListener('click', () => {
    if (game && window.confirm('Resign this game?')) act('POST', `/api/games/${game.id}/resign`)
  })
  $('stop').addEventListener('click', () => game && act('POST', `/api/games/${game.id}/stop`))
  $('show-ownership').addEventListener('change', drawBoard)
  window.addEventListener('resize', drawBoard)
  // the header grows when its form wraps or the next game's settings show: the board makes room
  new ResizeObserver(drawBoard).observe(document.querySelector('header'))

  fillHandicaps()
  api('GET', '/api/bots')
    .then(data => {
      fillBots(data)
      describeBot()
      return newGame()
    })
    .catch(e => showError(e.message))
})()
