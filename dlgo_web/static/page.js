// The page: a Shudan board (window.Shudan, bundled in static/shudan) driven by the server's
// game API. The server keeps each game; this page only shows it and sends the player's moves.
'use strict'
;(function () {
  const {h, render, Goban} = window.Shudan
  const COLS = 'ABCDEFGHJKLMNOPQRSTUVWXYZ'
  const MAX_HANDICAP = {9: 9, 13: 9, 19: 9}
  const $ = id => document.getElementById(id)

  let bots = []
  let game = null // the server's JSON of the current game
  let hoverPv = null // the principal variation shown on the board
  let poller = null

  // --- vertices: GTP text <-> Shudan [x, y] (y = 0 is the top row) -------------------------
  function toVertex(text, size) {
    if (!text || text === 'pass' || text === 'resign') return null
    return [COLS.indexOf(text[0].toUpperCase()), size - parseInt(text.slice(1), 10)]
  }
  function toText([x, y], size) {
    return COLS[x] + (size - y)
  }
  const emptyMap = (size, value) => Array.from({length: size}, () => Array(size).fill(value))

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
    $('error').textContent = message || ''
  }

  async function act(method, path, body) {
    try {
      showError('')
      update(await api(method, path, body))
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

  function fillHandicaps() {
    const size = parseInt($('size').value, 10)
    const select = $('handicap')
    const chosen = select.value
    select.innerHTML = '<option value="0">none</option>'
    for (let n = 2; n <= (MAX_HANDICAP[size] || 0); n++) select.add(new Option(String(n), String(n)))
    select.value = [...select.options].some(o => o.value === chosen) ? chosen : '0'
  }

  function describeBot() {
    const bot = bots.find(b => b.name === $('bot').value)
    if (!bot) return
    const parts = Object.entries(bot.agents).map(([size, agent]) => `${size}x${size}: ${agent || 'none'}`)
    const seconds = bot.seconds_per_move[$('size').value]
    $('bot-info').textContent =
      `${bot.name} (${bot.config}) plays ${parts.join(', ')}` + (seconds ? `; up to ${seconds} s a move` : '')
  }

  async function loadBots() {
    const data = await api('GET', '/api/bots')
    bots = data.bots
    for (const bot of bots) $('bot').add(new Option(bot.name, bot.name))
    $('bot').value = data.default
    describeBot()
  }

  async function uploadSgf(file) {
    if (!file) return
    const text = await file.text()
    const s = settings()
    await act('POST', '/api/games/sgf', {sgf: text, name: file.name, bot: s.bot, colour: s.colour})
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
    try {
      update(await api('GET', `/api/games/${game.id}`))
    } catch (e) {
      showError(e.message)
    }
  }

  function analysis() {
    return game.thinking && game.live ? game.live : game.analysis
  }

  function boardProps() {
    const size = game.size
    const markerMap = emptyMap(size, null)
    const ghostStoneMap = emptyMap(size, null)
    const heatMap = emptyMap(size, null)
    let paintMap = emptyMap(size, 0)
    const last = game.last_move && toVertex(game.last_move.move, size)
    if (last) markerMap[last[1]][last[0]] = {type: 'circle'}
    const search = analysis()
    if (search && !game.result && !hoverPv) {
      const most = Math.max(1, ...search.candidates.map(c => c.visits))
      for (const c of search.candidates) {
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
    const width = Math.min(window.innerWidth - 40, window.innerHeight - 140, 760)
    return {
      signMap: game.board,
      markerMap,
      ghostStoneMap,
      heatMap,
      paintMap,
      vertexSize: Math.max(16, Math.floor(width / (size + 1.5))),
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
        const search = analysis()
        const c = search && search.candidates.find(c => c.move === toText(vertex, size))
        if (c) showPv(c)
      },
      onVertexMouseLeave: () => {
        if (hoverPv && hoverPv.fromBoard) hidePv()
      },
    }
  }

  function showPv(candidate, fromTable) {
    const toMove = game.thinking ? game.to_move : game.analysis ? otherOf(game.human) : game.to_move
    hoverPv = {moves: candidate.pv, firstSign: toMove === 'black' ? 1 : -1, fromBoard: !fromTable}
    drawBoard()
  }
  function hidePv() {
    hoverPv = null
    drawBoard()
  }
  const otherOf = colour => (colour === 'black' ? 'white' : 'black')

  function drawBoard() {
    render(h(Goban, boardProps()), $('board'))
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
    else if (!game.result && game.to_move === game.human) status = (status ? status + ' ' : '') + 'Your move.'
    if (game.ko && !game.result && game.to_move === game.human) status += ` Ko: you may not retake at ${game.ko} now.`
    $('status').textContent = status
    if (game.error) showError(game.error)
    const search = analysis()
    if (search) {
      const pct = Math.round(search.winrate * 1000) / 10
      $('winrate-bar').style.width = `${pct}%`
      $('winrate-text').textContent =
        `bot's win rate ${pct}% (${search.visits} visits, ${search.seconds} s)` + (search.move ? `, played ${search.move}` : '')
    } else {
      $('winrate-bar').style.width = '0'
      $('winrate-text').textContent = game.thinking ? 'searching…' : 'no search behind the last move'
    }
    const body = $('candidates').querySelector('tbody')
    body.innerHTML = ''
    for (const c of search ? search.candidates : []) {
      const row = body.insertRow()
      row.insertCell().textContent = c.move
      row.insertCell().textContent = String(c.visits)
      row.insertCell().textContent = `${Math.round(c.winrate * 1000) / 10}%`
      const pv = row.insertCell()
      pv.className = 'pv'
      pv.textContent = c.pv.join(' ')
      row.addEventListener('mouseenter', () => showPv(c, true))
      row.addEventListener('mouseleave', hidePv)
    }
    const r = game.result
    $('result').textContent = r
      ? `Result: ${r.result} (${r.reason})` + (r.dead ? ` · Black ${r.black}, White ${r.white} with komi; dead stones marked ✕` : '')
      : ''
  }

  // --- wiring ---------------------------------------------------------------------------
  $('new-game').addEventListener('submit', evt => {
    evt.preventDefault()
    act('POST', '/api/games', settings())
  })
  $('size').addEventListener('change', () => {
    fillHandicaps()
    describeBot()
  })
  $('bot').addEventListener('change', describeBot)
  $('sgf-file').addEventListener('change', evt => uploadSgf(evt.target.files[0]))
  $('pass').addEventListener('click', () => game && act('POST', `/api/games/${game.id}/play`, {move: 'pass'}))
  $('undo').addEventListener('click', () => game && act('POST', `/api/games/${game.id}/undo`))
  $('resign').addEventListener('click', () => {
    if (game && window.confirm('Resign this game?')) act('POST', `/api/games/${game.id}/resign`)
  })
  $('stop').addEventListener('click', () => game && act('POST', `/api/games/${game.id}/stop`))
  $('show-ownership').addEventListener('change', () => game && drawBoard())
  window.addEventListener('resize', () => game && drawBoard())

  fillHandicaps()
  loadBots()
    .then(() => act('POST', '/api/games', settings()))
    .catch(e => showError(e.message))
})()
