// Drives the dlgo GTP engine the way Sabaki does, with Sabaki's own GTP client library (@sabaki/gtp).
//
//   node sabaki_test.mjs ENGINE [ARGS...]
//   cd tests/sabaki && npm ci && npm test     # the engine with configs/engine/mcts.toml and 200 rounds per move
//   node sabaki_test.mjs ../../.venv/bin/python -m gtp_engine --config configs/engine/mcts.toml --set mcts.rounds=200
//
// The engine command may also come from the environment: SABAKI_ENGINE as a JSON array of strings.
// A relative ENGINE path is resolved against the current directory, like Sabaki does.
// SABAKI_ENGINE_CWD sets the engine's working directory (default: the repository root).
// SABAKI_STARTUP_LIMIT_S (default 5): the start-up probes must all be answered within this time.
// SABAKI_ABORT_LIMIT_S (default 3): an analysis must end within this time after the interrupting line.
// SABAKI_TIMEOUT_S (default 55): watchdog for the whole run.
//
// What it does, mirroring Sabaki 0.5x/0.60 (src/modules/enginesyncer.js and sabaki.js):
//   1. start-up probes `name`, `version`, `protocol_version`, `list_commands`, pipelined;
//   2. sync through ControllerStateTracker (the class Sabaki uses): `komi`, `boardsize 9`, then
//      `clear_board` + a replay of `play B x`/`play W y` (with a run of same-colour plays as setup);
//   3. a second sync to a position sharing a prefix, which the tracker does with `undo` + `play`;
//   4. `genmove`, then the genmove_analyze variant Sabaki would pick (`<cmd> COLOR 50`, read `play X`);
//   5. `lz-analyze B 50` until a few `info` lines arrived, then `protocol_version` as the interrupt
//      (what Sabaki's sendAbort sends), checking that the analysis response ends cleanly and the
//      interrupt answers `2`; the `info` lines are parsed key by key and with Sabaki's own parser;
//   6. `kata-analyze B 50 ownership true` (floats, 81 ownership values), `kata-analyze B 50` without
//      ownership, and `analyze B 50` when listed;
//   7. the interrupt as Sabaki really does it when the user plays a move while analysing:
//      `protocol_version` immediately followed by the sync's `play`, then analysis again;
//   8. `quit` through Controller.stop(), checking exit status 0.
// Any failed check exits with status 1 and prints the failure, the GTP transcript and the engine's stderr.

import process from 'node:process'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import gtp from '@sabaki/gtp'

const {Controller, ControllerStateTracker} = gtp

// ---------------------------------------------------------------------------------------------------
// Set-up

function engineCommand() {
  let argv = process.argv.slice(2)
  if (argv[0] === '--') argv = argv.slice(1)
  if (argv.length > 0) return argv
  if (process.env.SABAKI_ENGINE) {
    let parsed = JSON.parse(process.env.SABAKI_ENGINE)
    if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every(x => typeof x === 'string')) {
      throw new Error('SABAKI_ENGINE must be a JSON array of strings')
    }
    return parsed
  }
  console.error('usage: node sabaki_test.mjs ENGINE [ARGS...]   (or SABAKI_ENGINE=\'["engine", "arg"]\')')
  process.exit(2)
}

const envNumber = (name, fallback) => (process.env[name] ? +process.env[name] : fallback)
const STARTUP_LIMIT_S = envNumber('SABAKI_STARTUP_LIMIT_S', 5)
const ABORT_LIMIT_S = envNumber('SABAKI_ABORT_LIMIT_S', 3)
const TIMEOUT_S = envNumber('SABAKI_TIMEOUT_S', 55)
const SIZE = 9
const ALPHA = 'ABCDEFGHJKLMNOPQRSTUVWXYZ'

let [enginePath, ...engineArgs] = engineCommand()
// Like Sabaki, resolve a relative engine path against our own directory, not the engine's cwd.
if (enginePath.includes('/') && !path.isAbsolute(enginePath)) enginePath = path.resolve(enginePath)
const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const controller = new Controller(enginePath, engineArgs, {cwd: process.env.SABAKI_ENGINE_CWD || REPO_ROOT})
const tracker = new ControllerStateTracker(controller)

const transcript = []
const stderrLines = []
let exitCode = null
const t0 = Date.now()
const stamp = () => ((Date.now() - t0) / 1000).toFixed(2).padStart(6)

controller.on('stderr', ({content}) => stderrLines.push(content))
controller.on('stopped', ({signal}) => {
  // @sabaki/gtp passes the child's exit code under the name `signal`.
  exitCode = signal
})
controller.on('command-sent', ({command, subscribe}) => {
  let text = [command.name, ...command.args].join(' ')
  transcript.push(`${stamp()} >> ${text}`)
  subscribe(({line}) => transcript.push(`${stamp()} << ${line.length > 300 ? line.slice(0, 300) + ' ...' : line}`))
})

class CheckError extends Error {}

function check(condition, message) {
  if (!condition) throw new CheckError(message)
}

function dumpAndExit(message) {
  console.error(`\nSABAKI TEST FAILED: ${message}\n`)
  if (exitCode != null) console.error(`(the engine process exited with status ${exitCode})\n`)
  console.error('--- GTP transcript (last 200 lines) ---')
  for (let line of transcript.slice(-200)) console.error(line)
  console.error('--- engine stderr (last 60 lines) ---')
  for (let line of stderrLines.slice(-60)) console.error(line)
  if (controller.process != null) controller.process.kill('SIGKILL')
  process.exit(1)
}

const watchdog = setTimeout(() => dumpAndExit(`watchdog: the run took more than ${TIMEOUT_S} s`), TIMEOUT_S * 1000)

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

function withTimeout(promise, seconds, what) {
  let timer
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new CheckError(`${what}: no answer within ${seconds} s`)), seconds * 1000)
    })
  ])
}

async function ok(command, seconds = 20) {
  let response = await withTimeout(controller.sendCommand(command), seconds, Command(command))
  check(!response.error, `\`${Command(command)}\` failed: ?${response.content}`)
  return response.content
}

function Command({name, args = []}) {
  return [name, ...args].join(' ')
}

function log(message) {
  console.log(`${stamp()}  ${message}`)
}

// ---------------------------------------------------------------------------------------------------
// Board helpers (the positions below have no captures, so occupancy is just the set of played points)

const isVertex = v => {
  let m = /^([A-HJ-Z])(\d{1,2})$/.exec(v.toUpperCase())
  return m != null && ALPHA.indexOf(m[1]) < SIZE && +m[2] >= 1 && +m[2] <= SIZE
}

function occupancy(history) {
  let board = new Map()
  for (let {name, args} of history) {
    if (name === 'play' && args[1].toUpperCase() !== 'PASS') board.set(args[1].toUpperCase(), args[0].toUpperCase()[0])
    if (name === 'set_free_handicap') for (let v of args) board.set(v.toUpperCase(), 'B')
  }
  return board
}

// Sabaki's parseAnalysis from src/modules/enginesyncer.js (v0.60), kept verbatim in behaviour, minus the
// @sabaki/go-board dependency: vertices stay strings.
function sabakiParseAnalysis(line, sign, width = SIZE, height = SIZE) {
  let matchOwner = line.match(/ownership\s+(.+)/)
  let ownership
  if (matchOwner) {
    let raw = matchOwner[1].split(/\s+/).map(x => sign * parseFloat(x))
    line = line.slice(0, matchOwner.index)
    if (raw.length == height * width) {
      ownership = Array(height)
        .fill(0)
        .map((_, y) =>
          Array(width)
            .fill(0)
            .map((_, x) => raw[x + y * width])
        )
    }
  }
  let variations = line
    .split(/\s*info\s+/)
    .slice(1)
    .map(x => x.trim())
    .map(x => {
      let matchPV = x.match(/(pass|[A-Za-z]\d+)(\s+(pass|[A-Za-z]\d+))*$/)
      if (matchPV == null) return null
      let passIndex = matchPV[0].indexOf('pass')
      if (passIndex < 0) passIndex = Infinity
      return [
        x.slice(0, matchPV.index).trim().split(/\s+/).slice(0, -1),
        matchPV[0]
          .slice(0, passIndex)
          .split(/\s+/)
          .filter(x => x.length >= 2)
      ]
    })
    .filter(x => x != null)
    .map(([tokens, pv]) => {
      let keys = tokens.filter((_, i) => i % 2 === 0)
      let values = tokens.filter((_, i) => i % 2 === 1)
      keys.push('pv')
      values.push(pv)
      return keys.reduce((acc, x, i) => ((acc[x] = values[i]), acc), {})
    })
    .filter(({move}) => move.match(/^[A-Za-z]\d+$/))
    .map(({move, visits, winrate, scoreLead, pv}) => ({
      vertex: move,
      visits: +visits,
      winrate: winrate.includes('.') ? +winrate * 100 : +winrate / 100,
      scoreLead: scoreLead != null ? +scoreLead : null,
      moves: pv
    }))
  return {variations, ownership}
}

// Strict key/value parse of one analysis line: `info k v k v ... pv M M M info ... [ownership f f f]`.
function parseInfoLine(line, {kata, wantOwnership, occupied}) {
  check(line.startsWith('info '), `analysis line does not start with "info ": ${JSON.stringify(line)}`)
  let ownership = null
  let body = line
  let ownIndex = line.search(/(^|\s)ownership\s/)
  if (ownIndex >= 0) {
    check(wantOwnership, `"ownership" printed although not asked for: ${line.slice(ownIndex, ownIndex + 60)}...`)
    ownership = line.slice(ownIndex).trim().split(/\s+/).slice(1)
    body = line.slice(0, ownIndex)
  } else {
    check(!wantOwnership, `no "ownership" in a kata-analyze line asked with "ownership true": ${line.slice(0, 200)}`)
  }
  let candidates = body.split(/(?:^|\s+)info\s+/).filter(x => x.trim() !== '')
  check(candidates.length >= 1, `no candidate in analysis line: ${line}`)
  let parsed = []
  for (let candidate of candidates) {
    let tokens = candidate.trim().split(/\s+/)
    let fields = {}
    let i = 0
    while (i < tokens.length) {
      let key = tokens[i]
      if (key === 'pv') {
        fields.pv = tokens.slice(i + 1)
        break
      }
      check(i + 1 < tokens.length, `key "${key}" without a value in: info ${candidate}`)
      check(!(key in fields), `key "${key}" twice in: info ${candidate}`)
      fields[key] = tokens[i + 1]
      i += 2
    }
    for (let key of ['move', 'visits', 'winrate', 'prior', 'lcb', 'order', 'pv']) {
      check(key in fields, `key "${key}" missing in: info ${candidate}`)
    }
    let where = `in: info ${candidate}`
    // A pass candidate (as Leela Zero prints it) is allowed, with the pv "pass"; Sabaki skips it.
    let isPass = fields.move.toLowerCase() === 'pass'
    check(isPass || isVertex(fields.move), `move "${fields.move}" is not a 9x9 vertex ${where}`)
    check(!occupied.has(fields.move.toUpperCase()), `candidate ${fields.move} is an occupied point ${where}`)
    check(/^\d+$/.test(fields.visits), `visits must be a non-negative integer ${where}`)
    check(/^\d+$/.test(fields.order), `order must be a non-negative integer ${where}`)
    check(fields.pv.length >= 1, `empty pv ${where}`)
    check(fields.pv[0].toUpperCase() === fields.move.toUpperCase(), `pv does not start with the move ${where}`)
    if (isPass) {
      check(fields.pv.length === 1, `the pv of a pass candidate must stop at the pass ${where}`)
    } else {
      for (let v of fields.pv) {
        check(v.toLowerCase() !== 'pass', `pass inside a pv (must be cut before it) ${where}`)
        check(isVertex(v), `pv vertex "${v}" is not a 9x9 vertex ${where}`)
      }
    }
    if (kata) {
      for (let key of ['winrate', 'prior', 'lcb', 'scoreLead']) {
        if (key === 'scoreLead' && !(key in fields)) continue
        check(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(fields[key]), `${key} "${fields[key]}" is not a float ${where}`)
      }
      // Sabaki tells integer from float winrates by the presence of a '.'.
      check(fields.winrate.includes('.'), `kata winrate "${fields.winrate}" has no '.', Sabaki would read it as an integer ${where}`)
      let w = +fields.winrate
      check(w >= 0 && w <= 1, `kata winrate ${w} outside [0,1] ${where}`)
      let p = +fields.prior
      check(p >= 0 && p <= 1, `kata prior ${p} outside [0,1] ${where}`)
      check(+fields.lcb <= 1, `kata lcb ${fields.lcb} above 1 ${where}`)
    } else {
      for (let key of ['winrate', 'prior', 'lcb']) {
        check(/^-?\d+$/.test(fields[key]), `${key} "${fields[key]}" must be an integer (10000 = 100%) ${where}`)
      }
      check(+fields.winrate >= 0 && +fields.winrate <= 10000, `winrate ${fields.winrate} outside [0,10000] ${where}`)
      check(+fields.prior >= 0 && +fields.prior <= 10000, `prior ${fields.prior} outside [0,10000] ${where}`)
      check(+fields.lcb <= 10000, `lcb ${fields.lcb} above 10000 ${where}`)
    }
    parsed.push(fields)
  }
  let orders = parsed.map(f => +f.order)
  check(
    orders.every((o, i) => o === i),
    `order values are not 0,1,2,... in line order: ${orders.join(',')}`
  )
  let moves = parsed.map(f => f.move.toUpperCase())
  check(new Set(moves).size === moves.length, `a move appears twice among the candidates: ${moves.join(' ')}`)
  if (ownership != null) {
    check(ownership.length === SIZE * SIZE, `ownership has ${ownership.length} values, expected ${SIZE * SIZE}`)
    for (let x of ownership) {
      check(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(x), `ownership value "${x}" is not a float`)
      check(+x >= -1 && +x <= 1, `ownership value ${x} outside [-1,1]`)
    }
  }
  return {candidates: parsed, ownership: ownership && ownership.map(Number)}
}

// ---------------------------------------------------------------------------------------------------
// Analysis: send, collect streamed lines, interrupt like Sabaki, check the framing

async function analyse(name, args, {minInfoLines = 2, sign = 1, kata = false, wantOwnership = false, afterInterrupt = null} = {}) {
  let lines = []
  let endSeen = false
  let enoughResolve
  let enough = new Promise(resolve => (enoughResolve = resolve))
  let command = {name, args}
  let occupied = occupancy(tracker.state.history)
  let sentAt = Date.now()
  let analysisPromise = controller.sendCommand(command, ({line, end}) => {
    if (end) {
      endSeen = true
      enoughResolve()
      return
    }
    lines.push({line, at: Date.now()})
    if (lines.filter(l => l.line.startsWith('info ')).length >= minInfoLines) enoughResolve()
  })
  analysisPromise.catch(() => {})
  await withTimeout(enough, 20, `${Command(command)} streaming ${minInfoLines} info lines`)
  check(!endSeen, `${Command(command)} ended by itself before it was interrupted (got ${lines.length} lines)`)
  let interruptAt = Date.now()
  // Sabaki's EngineSyncer.sendAbort(): `protocol_version` while the controller is busy.
  let abortPromise = controller.sendCommand({name: 'protocol_version'})
  let extra = afterInterrupt ? afterInterrupt() : null
  let response = await withTimeout(analysisPromise, ABORT_LIMIT_S + 5, `${Command(command)} after the interrupt`)
  let endedAt = Date.now()
  let abortResponse = await withTimeout(abortPromise, 10, 'protocol_version sent as the interrupt')
  if (extra) await withTimeout(extra, 20, 'commands queued right behind the interrupt')

  check(!response.error, `${Command(command)} answered with an error: ?${response.content}`)
  check(lines.length >= 1 && lines[0].line === '=', `${Command(command)}: first response line must be "=" alone, got ${JSON.stringify(lines[0] && lines[0].line)}`)
  check(
    (endedAt - interruptAt) / 1000 <= ABORT_LIMIT_S,
    `${Command(command)} took ${((endedAt - interruptAt) / 1000).toFixed(2)} s to stop after the interrupt (limit ${ABORT_LIMIT_S} s)`
  )
  check(!abortResponse.error && abortResponse.content === '2', `protocol_version after the analysis answered ${JSON.stringify(abortResponse)} instead of "= 2"`)

  let infoLines = lines.slice(1).map(l => l.line)
  for (let line of infoLines) check(line.startsWith('info '), `${Command(command)}: a response line that is not an info line: ${JSON.stringify(line)}`)
  check(infoLines.length >= minInfoLines, `${Command(command)}: only ${infoLines.length} info lines`)
  // The response content seen by Sabaki's Response parser is exactly the info lines.
  check(response.content === infoLines.join('\n').trim(), `${Command(command)}: Response.content differs from the streamed lines`)

  let parsedLines = infoLines.map(line => parseInfoLine(line, {kata, wantOwnership, occupied}))
  for (let line of infoLines) {
    let {variations, ownership} = sabakiParseAnalysis(line, sign)
    let count = line.split(/\s*info\s+/).slice(1).filter(x => !/^move\s+pass\s/i.test(x)).length
    check(variations.length === count, `Sabaki's parser kept ${variations.length} of ${count} candidates in: ${line.slice(0, 200)}`)
    for (let v of variations) {
      check(Number.isFinite(v.visits) && Number.isFinite(v.winrate), `Sabaki's parser got NaN from: ${line.slice(0, 200)}`)
      check(v.winrate >= 0 && v.winrate <= 100, `Sabaki reads winrate ${v.winrate}% from: ${line.slice(0, 200)}`)
      check(v.moves.length >= 1, `Sabaki's parser found no pv moves in: ${line.slice(0, 200)}`)
    }
    check(!wantOwnership || ownership != null, `Sabaki's parser found no ${SIZE}x${SIZE} ownership in a line`)
  }
  let visits = parsedLines.map(p => p.candidates.reduce((s, c) => s + +c.visits, 0))
  check(visits[visits.length - 1] > 0, `${Command(command)}: no visits at all in the last info line`)
  log(
    `${Command(command)}: ${infoLines.length} info lines in ${((interruptAt - sentAt) / 1000).toFixed(2)} s, ` +
      `stopped ${((endedAt - interruptAt) * 1).toFixed(0)} ms after the interrupt; last line: ` +
      `${parsedLines[parsedLines.length - 1].candidates.length} candidates, ${visits[visits.length - 1]} visits, ` +
      `best ${parsedLines[parsedLines.length - 1].candidates[0].move} winrate ${parsedLines[parsedLines.length - 1].candidates[0].winrate}`
  )
  return parsedLines
}

// ---------------------------------------------------------------------------------------------------

const play = (color, vertex) => ({name: 'play', args: [color, vertex]})

async function main() {
  log(`engine: ${[enginePath, ...engineArgs].join(' ')}`)

  // 1. Start-up probes, pipelined as in EngineSyncer's 'started' handler.
  controller.start()
  controller.process.on('error', err => dumpAndExit(`cannot start the engine: ${err.message}`))
  let started = Date.now()
  let [name, version, protocol, commandList] = await withTimeout(
    Promise.all(['name', 'version', 'protocol_version', 'list_commands'].map(n => controller.sendCommand({name: n}))),
    Math.max(STARTUP_LIMIT_S, 30),
    'start-up probes'
  )
  let startupS = (Date.now() - started) / 1000
  for (let [n, r] of [['name', name], ['version', version], ['protocol_version', protocol], ['list_commands', commandList]]) {
    check(!r.error, `${n} failed: ?${r.content}`)
  }
  check(startupS <= STARTUP_LIMIT_S, `start-up probes took ${startupS.toFixed(2)} s (limit ${STARTUP_LIMIT_S} s)`)
  check(name.content.length > 0 && !name.content.includes('\n'), `name must be one non-empty line: ${JSON.stringify(name.content)}`)
  check(version.content.length > 0 && !version.content.includes('\n'), `version must be one non-empty line: ${JSON.stringify(version.content)}`)
  check(protocol.content === '2', `protocol_version answered ${JSON.stringify(protocol.content)}, expected 2`)
  let commands = commandList.content.split('\n')
  for (let c of commands) check(/^\S+$/.test(c), `list_commands line is not a single command name: ${JSON.stringify(c)}`)
  let required = ['protocol_version', 'name', 'version', 'known_command', 'list_commands', 'quit', 'boardsize',
    'clear_board', 'komi', 'play', 'genmove', 'undo', 'lz-analyze', 'kata-analyze']
  for (let c of required) check(commands.includes(c), `list_commands does not list ${c}`)
  check(await tracker.knowsCommand('undo'), 'ControllerStateTracker does not see undo in list_commands')
  log(`start-up: name=${name.content} version=${version.content}, ${commands.length} commands, ${startupS.toFixed(2)} s`)

  // 2. Sync by komi, boardsize, clear_board and a replay; B C3 G7 E5 is a setup run of same-colour plays.
  let history1 = [
    play('B', 'C3'), play('B', 'G7'), play('B', 'E5'),
    play('W', 'C7'), play('B', 'G3'), play('W', 'D6'), play('B', 'F4'), play('W', 'pass'), play('B', 'B5')
  ]
  let mark = transcript.length
  await withTimeout(tracker.sync({komi: 7.5, boardsize: [SIZE, SIZE], history: history1}), 30, 'first sync')
  let sent = transcript.slice(mark).filter(l => l.includes(' >> ')).map(l => l.split(' >> ')[1])
  let expected = ['komi 7.5', `boardsize ${SIZE}`, 'clear_board', ...history1.map(Command)]
  check(JSON.stringify(sent) === JSON.stringify(expected), `first sync sent ${JSON.stringify(sent)}, expected ${JSON.stringify(expected)}`)
  check(JSON.stringify(tracker.state.history) === JSON.stringify(history1.map(c => ({name: c.name, args: [c.args[0], c.args[1].toUpperCase()]}))),
    'tracker history differs after the first sync')
  log(`sync 1: ${sent.length} commands (komi, boardsize, clear_board, ${history1.length} plays) accepted`)

  // 3. A position sharing all but the last two moves: the tracker undoes twice and plays the new tail.
  let history2 = [...history1.slice(0, -2), play('W', 'D4'), play('B', 'E7')]
  mark = transcript.length
  await withTimeout(tracker.sync({komi: 7.5, boardsize: [SIZE, SIZE], history: history2}), 30, 'second sync')
  sent = transcript.slice(mark).filter(l => l.includes(' >> ')).map(l => l.split(' >> ')[1])
  expected = ['undo', 'undo', 'play W D4', 'play B E7']
  check(JSON.stringify(sent) === JSON.stringify(expected), `second sync sent ${JSON.stringify(sent)}, expected ${JSON.stringify(expected)}`)
  log('sync 2: undo, undo, play W D4, play B E7 accepted')

  // A plain undo of the last move and its replay.
  await ok({name: 'undo'})
  await ok(play('B', 'E7'))

  // 4. genmove for White (the side to move), then the genmove_analyze variant Sabaki would use.
  let moveStart = Date.now()
  let move = (await ok({name: 'genmove', args: ['W']}, 30)).toUpperCase()
  let occupied = occupancy(history2)
  check(move === 'PASS' || (isVertex(move) && !occupied.has(move)), `genmove W answered "${move}", not an empty 9x9 point or pass`)
  check(move !== 'RESIGN', 'genmove W resigned in an even opening position')
  log(`genmove W -> ${move} in ${((Date.now() - moveStart) / 1000).toFixed(2)} s`)
  await sleep(50)
  check(tracker.state.history.length === history2.length + 1, 'tracker did not record the genmove result')

  let genmoveAnalyze = ['genmove_analyze', 'lz-genmove_analyze', 'genmove'].find(x => commands.includes(x))
  if (genmoveAnalyze !== 'genmove') {
    let infos = 0
    let playLine = null
    let occ = occupancy(tracker.state.history)
    moveStart = Date.now()
    let response = await withTimeout(
      controller.sendCommand({name: genmoveAnalyze, args: ['B', '50']}, ({line, end}) => {
        if (line.startsWith('info ')) {
          infos++
          parseInfoLine(line, {kata: genmoveAnalyze.startsWith('kata'), wantOwnership: false, occupied: occ})
        }
        if (line.startsWith('play ')) playLine = line
      }),
      30,
      `${genmoveAnalyze} B 50`
    )
    check(!response.error, `${genmoveAnalyze} B 50 failed: ?${response.content}`)
    check(playLine != null, `${genmoveAnalyze} B 50 sent no "play <vertex>" line`)
    let lastLine = response.content.split('\n').pop()
    check(lastLine === playLine, `${genmoveAnalyze}: "play" must be the final line, got ${JSON.stringify(lastLine)}`)
    let vertex = playLine.slice(5).trim().toUpperCase()
    check(vertex === 'PASS' || (isVertex(vertex) && !occ.has(vertex)), `${genmoveAnalyze} played "${vertex}"`)
    log(`${genmoveAnalyze} B 50 -> ${vertex} after ${infos} info lines in ${((Date.now() - moveStart) / 1000).toFixed(2)} s`)
    await sleep(50)
    check(tracker.state.history.length === history2.length + 2, 'tracker did not record the genmove_analyze result')
  }

  // Back to a known position with Black to move, the way Sabaki gets there when the user clicks an
  // earlier node and plays another move: the tracker undoes the generated moves and plays the new one.
  let history3 = [...history2, play('W', 'H5')]
  let before = tracker.state.history.map(Command)
  let shared = 0
  while (shared < before.length && shared < history3.length && before[shared] === Command(history3[shared])) shared++
  mark = transcript.length
  await withTimeout(tracker.sync({komi: 7.5, boardsize: [SIZE, SIZE], history: history3}), 30, 'third sync')
  sent = transcript.slice(mark).filter(l => l.includes(' >> ')).map(l => l.split(' >> ')[1])
  expected = [...Array(before.length - shared).fill('undo'), ...history3.slice(shared).map(Command)]
  check(JSON.stringify(sent) === JSON.stringify(expected), `third sync sent ${JSON.stringify(sent)}, expected ${JSON.stringify(expected)}`)
  log(`sync 3: ${sent.join(', ')} accepted`)

  // 5. lz-analyze, interrupted by protocol_version.
  await analyse('lz-analyze', ['B', '50'], {minInfoLines: 3})

  // 6. kata-analyze with and without ownership; analyze when listed.
  let kataLines = await analyse('kata-analyze', ['B', '50', 'ownership', 'true'], {minInfoLines: 3, kata: true, wantOwnership: true})
  let own = kataLines[kataLines.length - 1].ownership
  // Row by row from the top-left (A9), from Black's (the side to move's) view: Black's stones should
  // on average look more Black than White's stones do.
  let occ = occupancy(tracker.state.history)
  let meanOver = color => {
    let values = []
    for (let [v, c] of occ) {
      if (c !== color) continue
      let x = ALPHA.indexOf(v[0])
      let y = SIZE - +v.slice(1)
      values.push(own[y * SIZE + x])
    }
    return values.reduce((a, b) => a + b, 0) / values.length
  }
  let [ownBlack, ownWhite] = [meanOver('B'), meanOver('W')]
  check(ownBlack > ownWhite, `ownership looks mis-oriented: mean ${ownBlack.toFixed(3)} on Black's stones, ${ownWhite.toFixed(3)} on White's (Black to move, so Black's should be higher)`)
  log(`ownership: mean ${ownBlack.toFixed(3)} on Black stones, ${ownWhite.toFixed(3)} on White stones`)

  await analyse('kata-analyze', ['B', '50'], {minInfoLines: 2, kata: true, wantOwnership: false})
  if (commands.includes('analyze')) await analyse('analyze', ['B', '50'], {minInfoLines: 2})
  await analyse('lz-analyze', ['W', '50'], {minInfoLines: 2, sign: -1})

  // 7. The user plays while analysis runs: Sabaki's sync() calls sendAbort() without waiting, then the
  // tracker's sync sends the new play right behind the protocol_version line.
  let history4 = [...history3, play('B', 'B7')]
  await analyse('lz-analyze', ['B', '50'], {
    minInfoLines: 2,
    afterInterrupt: () => tracker.sync({komi: 7.5, boardsize: [SIZE, SIZE], history: history4})
  })
  check(transcript.some(l => l.endsWith('>> play B B7')), 'the play queued behind the interrupt was not sent')
  await analyse('lz-analyze', ['W', '50'], {minInfoLines: 2, sign: -1})
  // The board must hold B7 now: playing there again must be refused.
  let again = await controller.sendCommand(play('W', 'B7'))
  check(again.error, 'play W B7 on the stone played during the interrupt was accepted: the interrupt lost the play')
  log('play queued right behind the interrupt was applied')

  // 8. quit.
  await withTimeout(controller.stop(5000), 10, 'quit')
  await sleep(100)
  check(exitCode === 0, `engine exited with status ${exitCode} after quit`)
  log(`quit: exit status 0; all Sabaki checks passed in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
}

main()
  .then(() => {
    clearTimeout(watchdog)
    process.exit(0)
  })
  .catch(err => dumpAndExit(err instanceof CheckError ? err.message : err && err.stack ? err.stack : String(err)))
