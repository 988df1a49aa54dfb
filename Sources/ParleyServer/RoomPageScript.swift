/// The room page's script (`RoomPage`): the client side of docs/signaling.md §12.
///
/// It always offers: one sendonly section each for the microphone and the camera, plus 2
/// recvonly receive slots per kind (`#…&slots=N` changes it), so a small room needs no second
/// round trip, and a data channel section: it publishes the data track `chat` (an ordered,
/// reliable RTCDataChannel labelled `chat`; with `#…&unreliable=1` also `chat-unreliable`,
/// unordered with maxRetransmits 0). The chat box sends on `chat`; what arrives on the channels
/// the server opens toward it (labelled with the remote track's SID) is listed with the sender's
/// identity.
/// `room.renegotiate` adds recvonly transceivers and sends `room.offer`; one negotiation at a time,
/// and a request that arrives meanwhile is folded into the next offer. `subscriptions` and
/// `room.subscribed` map a slot's mid to the remote track (and participant) it carries; each
/// participant's tile shows the receiver tracks of its slots.
///
/// `window.parleyRoom` is the state (JSON-able: `JSON.stringify(parleyRoom)`); its non-enumerable
/// methods are `stats()` (per remote track inbound-rtp figures), `localStats()`, `candidatePairs()`
/// (peer-to-peer rooms), `setMic(on)`, `setCamera(on)`, `sendData(text, track = "chat")`,
/// `dataChannel(track)` (the RTCDataChannel) and `leave()`. `remoteData` counts what each remote
/// data track's channel brought (string messages starting `bulk` are counted only, not listed). A
/// `peer-to-peer` or `go` room is a mesh of peer connections instead (`RoomPageMeshScript`).
enum RoomPageScript {
    static let source = #"""
"use strict";
(() => {
const $ = id => document.getElementById(id);
const fragment = new URLSearchParams(location.hash.slice(1));  // token=JWT, and slots=N (0-8) to change the default 2
const slotParam = fragment.has("slots") ? Number(fragment.get("slots")) : NaN;
const perKind = Number.isInteger(slotParam) && slotParam >= 0 && slotParam <= 8 ? slotParam : 2;
const initialSlots = {audio: perKind, video: perKind};
// simulcast=1: the camera at 960x540 in three VP8 layers (RFC 8853 rids q, h, f at 1/4, 1/2 and full size),
// so the server can send each subscriber the layer its downlink carries.
const simulcast = fragment.get("simulcast") === "1";
// processing=0: the microphone without echo cancellation, noise suppression or gain control (music, test tones).
const audioConstraints = fragment.get("processing") === "0"
  ? {echoCancellation: false, noiseSuppression: false, autoGainControl: false} : true;
const layers = [{rid: "q", scaleResolutionDownBy: 4}, {rid: "h", scaleResolutionDownBy: 2}, {rid: "f"}];
let dataTracks = [{name: "chat", options: {ordered: true}}]
  .concat(fragment.get("unreliable") === "1" ? [{name: "chat-unreliable", options: {ordered: false, maxRetransmits: 0}}] : []);
const t0 = performance.now();
const now = () => Math.round(performance.now() - t0);
const roomName = decodeURIComponent(location.pathname.slice("/rooms/".length));
const S = {
  room: roomName, phase: "idle", signalingState: "closed", connectionState: "new",
  roomSid: null, roomType: null, participantSid: null, identity: null,
  published: {},        // our section mid -> track SID
  slots: {},            // receive slot mid -> {trackSid, participantSid, kind}
  participants: {},     // remote participant SID -> {sid, identity, state, tracks: {trackSid: {name, kind, enabled}}}
  departed: [],         // remote participants that left: {sid, identity, at}
  negotiations: 0, micEnabled: true, cameraEnabled: true, localVideo: null,
  // ms since the page started; firstRemote* per identity: ms from the later of our room.join and its arrival
  timing: {arrived: {}, firstRemoteFrame: {}, firstRemoteAudio: {}},
  disconnected: null,   // {code, message}: room.disconnected, or the signaling socket closing under us
  errors: [],           // {code, message, ref, at}
  messages: [],         // the last 200 data track messages: {from, participantSid, trackSid, track, text, binary, local, at, atEpoch}
  dataChannels: {},     // our data tracks' channels: name -> readyState
  remoteData: {},       // channels toward us: remote track SID -> {state, messages, bytes, firstAtEpoch, lastAtEpoch}
  log: []               // the last 60 message types, "> " sent, "< " received
};
window.parleyRoom = S;
let ws = null, pc = null, stream = null, heartbeat = null, nextId = 1;
const pending = new Map();
const sent = [];      // our published sections: {tx, name, kind}
const channels = {};  // our data tracks' RTCDataChannels, by track name
let busy = false, again = false;
const want = {audio: 0, video: 0};

function note(line) { S.log.push(line); if (S.log.length > 60) S.log.shift(); }
function status() {
  const p = Object.keys(S.participants).length;
  $("status").textContent = S.phase + (pc ? " · media " + S.connectionState : S.mesh ? " · " + meshStatus() : "")
    + (S.phase === "joined" ? " · " + p + " other" + (p === 1 ? "" : "s") : "");
}
function closeMedia() { if (pc) { pc.close(); S.connectionState = "closed"; } meshClose(); }
function showError(text) { const e = $("error"); e.textContent = text; e.hidden = false; }
function fail(err) {
  const code = err && err.code, message = String(err && err.message || err);
  S.errors.push({code: code ?? null, message, ref: err && err.ref || null, at: now()});
  if (S.phase !== "left" && S.phase !== "disconnected") S.phase = "failed";
  showError(code ? "Error " + code + ": " + message : message);
  closeMedia();
  setButtons(false);
  status();
}
class RoomError extends Error {
  constructor(m) { super(m.message || m.reason || m.type); this.code = m.code; this.ref = m.ref; }
}

function send(msg) { ws.send(JSON.stringify(msg)); note("> " + msg.type); }
function request(msg, ms = 20000) {
  const id = String(nextId++);
  msg.id = id;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { pending.delete(id); reject(new Error(msg.type + ": no reply within " + ms + " ms")); }, ms);
    pending.set(id, {resolve: m => { clearTimeout(timer); resolve(m); }, reject: e => { clearTimeout(timer); reject(e); }});
    send(msg);
  });
}

function connect(token) {
  return new Promise((resolve, reject) => {
    const socket = ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/v1/signaling");
    S.signalingState = "connecting";
    ws.onopen = () => {
      S.signalingState = "open";
      request({type: "hello", v: 1, token, client: "parley-room-page/1"}, 10000).then(resolve, reject);
    };
    ws.onmessage = ev => { if (socket === ws) try { receive(JSON.parse(ev.data)); } catch (e) { fail(e); } };
    ws.onclose = ev => {
      if (socket !== ws) return;  // an earlier try's socket
      S.signalingState = "closed";
      clearInterval(heartbeat);
      const why = new RoomError({code: ev.code, message: "signaling connection closed" + (ev.reason ? ": " + ev.reason : "")});
      for (const p of pending.values()) p.reject(why);
      pending.clear();
      reject(why);
      if (S.phase === "joined" || S.phase === "joining") {
        S.disconnected = {code: ev.code, message: why.message};
        fail(why);
        S.phase = "disconnected";
        status();
      }
    };
  });
}

function receive(m) {
  note("< " + m.type);
  if (meshReceive(m)) return;  // peer-to-peer rooms' relayed messages
  const waiter = m.ref !== undefined && pending.get(m.ref);
  if (waiter) {
    pending.delete(m.ref);
    if (m.type === "error" || m.type === "room.disconnected") waiter.reject(new RoomError(m)); else waiter.resolve(m);
    if (m.type === "error" || m.type === "room.joined" || m.type === "room.answer") return;  // the requester handles these
  }
  const p = S.participants[m.participantSid];
  switch (m.type) {
  case "welcome":
    clearInterval(heartbeat);
    heartbeat = setInterval(() => { if (ws.readyState === 1) send({type: "ping", id: String(nextId++)}); }, (m.heartbeat || 20) * 1000);
    break;
  case "ping": send({type: "pong", ref: m.id}); break;
  case "pong": break;
  case "error": fail(new RoomError(m)); break;
  case "room.renegotiate":  // even for 0 and 0: the server asked for an offer
    want.audio += m.audio || 0; want.video += m.video || 0; again = true;
    negotiate();
    break;
  case "room.participantConnected": addParticipant(m.participant); break;
  case "room.participantDisconnected":
    if (p) S.departed.push({sid: p.sid, identity: p.identity, at: now()});
    delete S.participants[m.participantSid];
    dropSlots(s => s.participantSid === m.participantSid);
    break;
  case "room.participantReconnecting": if (p) p.state = "reconnecting"; break;
  case "room.participantReconnected": if (p) p.state = "connected"; break;
  case "room.trackPublished": if (p) p.tracks[m.track.sid] = track(m.track); break;
  case "room.trackUnpublished":
    if (p) delete p.tracks[m.trackSid];
    dropSlots(s => s.trackSid === m.trackSid);
    break;
  case "room.trackChanged": if (p && p.tracks[m.trackSid]) p.tracks[m.trackSid].enabled = m.enabled; break;
  case "room.subscribed": S.slots[m.mid] = {trackSid: m.trackSid, participantSid: m.participantSid, kind: kindOf(m.mid)}; break;
  case "room.unsubscribed": dropSlots(s => s.trackSid === m.trackSid); break;
  case "room.subscriptionFailed": S.errors.push({code: m.code, message: m.message, ref: null, at: now()}); break;
  case "room.trackSwitchedOff": case "room.trackSwitchedOn": switched(m.trackSid, m.type === "room.trackSwitchedOff"); break;
  case "room.dominantSpeaker": S.dominantSpeaker = m.participantSid || null; break;
  case "room.disconnected":
    S.disconnected = {code: m.code ?? null, message: m.message || ""};
    S.phase = "disconnected";
    closeMedia();
    setButtons(false);
    showError("Disconnected from the room" + (m.code ? " (" + m.code + ")" : "") + (m.message ? ": " + m.message : ""));
    break;
  default: break;  // a type this page does not know: ignored (§3)
  }
  render();
}

const track = t => ({name: t.name, kind: t.kind, enabled: t.enabled !== false});
function addParticipant(info) {
  const tracks = {};
  for (const t of info.tracks || []) if (t.sid) tracks[t.sid] = track(t);
  S.participants[info.sid] = {sid: info.sid, identity: info.identity, state: info.state, tracks};
  S.timing.arrived[info.identity] = now();
}
function switched(trackSid, off) {
  for (const p of Object.values(S.participants)) if (p.tracks[trackSid]) p.tracks[trackSid].switchedOff = off;
}
"""# + RoomPageDataScript.source + #"""
function dropSlots(match) { for (const [mid, s] of Object.entries(S.slots)) if (match(s)) delete S.slots[mid]; }
function transceiver(mid) { return pc ? pc.getTransceivers().find(t => t.mid === mid) : undefined; }
function kindOf(mid) { const t = transceiver(mid); return t ? t.receiver.track.kind : null; }
function applyMaps(m) {
  if (Array.isArray(m.published)) { S.published = {}; for (const p of m.published) S.published[p.mid] = p.trackSid; }
  if (Array.isArray(m.subscriptions)) {
    S.slots = {};
    for (const s of m.subscriptions) S.slots[s.mid] = {trackSid: s.trackSid, participantSid: s.participantSid, kind: kindOf(s.mid)};
  }
}

// Offers: every section, with every candidate (no trickle in the room family).
function addSlots(audio, video) {
  for (let i = 0; i < audio; i++) pc.addTransceiver("audio", {direction: "recvonly"});
  for (let i = 0; i < video; i++) pc.addTransceiver("video", {direction: "recvonly"});
}
async function offer() {
  await pc.setLocalDescription(await pc.createOffer());
  if (pc.iceGatheringState !== "complete") {
    await new Promise(resolve => {
      const timer = setTimeout(resolve, 5000);
      pc.addEventListener("icegatheringstatechange", () => {
        if (pc.iceGatheringState === "complete") { clearTimeout(timer); resolve(); }
      });
    });
  }
  return pc.localDescription.sdp;
}
const newTracks = () => sent.filter(s => s.tx.mid !== null && !(s.tx.mid in S.published))
  .map(s => ({mid: s.tx.mid, name: s.name, kind: s.kind, priority: "standard", enabled: s.tx.sender.track.enabled}));
async function negotiate() {
  if (busy) { again = true; return; }
  busy = true;
  try {
    while (S.phase === "joined" && (again || want.audio || want.video)) {
      again = false;
      addSlots(want.audio, want.video);
      want.audio = 0; want.video = 0;
      const sdp = await offer();
      const tracks = newTracks();
      const answer = await request({type: "room.offer", offer: sdp, tracks});
      applyMaps(answer);  // before any other await: a room.subscribed sent after the answer must land on top
      await pc.setRemoteDescription({type: "answer", sdp: answer.answer});
      S.negotiations++;
      render();
    }
  } catch (e) { fail(e); } finally { busy = false; }
}

function videoGrant(token) {
  try {
    const claims = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
    return (claims.grants && claims.grants.video) || {};
  } catch (e) { return {}; }
}
async function join(token) {
  $("join").hidden = true;
  $("error").hidden = true;
  if (ws) ws.close(1000);  // an earlier try's
  if (stream) stream.getTracks().forEach(t => t.stop());
  sent.length = 0;
  S.phase = "media"; status();
  // Parley's finer video grants in the token (absent: allowed) decide what the page publishes.
  const grant = videoGrant(token);
  if (grant.canPublishData === false) dataTracks = [];
  stream = grant.canPublish === false ? new MediaStream()
    : await navigator.mediaDevices.getUserMedia({audio: audioConstraints, video: simulcast ? {width: 960, height: 540} : true});
  $("local").srcObject = stream;
  pc = new RTCPeerConnection({iceServers: [], bundlePolicy: "max-bundle", rtcpMuxPolicy: "require"});
  pc.onconnectionstatechange = () => { S.connectionState = pc.connectionState; status(); };
  pc.ontrack = () => render();
  pc.ondatachannel = ev => receiveChannel(ev.channel);
  for (const d of dataTracks) {
    const channel = channels[d.name] = pc.createDataChannel(d.name, d.options);
    S.dataChannels[d.name] = channel.readyState;
    channel.onopen = channel.onclose = () => { S.dataChannels[d.name] = channel.readyState; $("say").hidden = channels.chat.readyState !== "open"; };
  }
  for (const t of stream.getTracks()) {
    if (t.kind === "video") {
      t.contentHint = "detail";  // keep the camera's size: libwebrtc then drops frames rather than scaling down
      const v = t.getSettings();
      S.localVideo = {width: v.width, height: v.height, frameRate: v.frameRate};
    }
    const init = {direction: "sendonly", streams: [stream]};
    if (simulcast && t.kind === "video") init.sendEncodings = layers;
    sent.push({tx: pc.addTransceiver(t, init), name: t.kind === "audio" ? "mic" : "camera", kind: t.kind});
  }
  addSlots(initialSlots.audio, initialSlots.video);
  S.phase = "connecting"; status();
  await connect(token);
  busy = true;
  S.phase = "joining"; status();
  const sdp = await offer();
  S.timing.joinSent = now();
  const described = dataTracks.map(d => ({name: d.name, kind: "data", priority: "standard", enabled: true}));
  const joined = await request({type: "room.join", roomV: 1, room: roomName, offer: sdp, tracks: newTracks().concat(described),
                                automaticSubscription: true, dominantSpeaker: true});
  S.timing.joined = now();
  S.roomSid = joined.room.sid; S.roomType = joined.room.type;
  S.participantSid = joined.participant.sid; S.identity = joined.participant.identity;
  for (const p of joined.participants || []) addParticipant(p);
  applyMaps(joined);  // before any other await, as in negotiate()
  S.phase = "joined";
  if (isMesh(joined.room.type)) startMesh(joined); else {
    await pc.setRemoteDescription({type: "answer", sdp: joined.answer});
    S.negotiations++;
  }
  $("title").textContent = roomName + " · " + S.identity;
  setButtons(true);
  render();
  busy = false;
  negotiate();
  watchFirstMedia();
}

// Tiles: one per remote participant, fed by the receiver tracks of its slots.
function render() {
  status();
  const tiles = $("tiles");
  $("self").classList.toggle("speaking", !!S.participantSid && S.participantSid === S.dominantSpeaker);
  for (const el of tiles.querySelectorAll(".tile[data-sid]")) if (!S.participants[el.dataset.sid]) el.remove();
  for (const p of Object.values(S.participants)) {
    let el = tiles.querySelector('.tile[data-sid="' + p.sid + '"]');
    if (!el) {
      el = document.createElement("figure");
      el.className = "tile"; el.dataset.sid = p.sid;
      el.innerHTML = '<video autoplay playsinline muted></video><audio autoplay></audio><figcaption><span class="name"></span>'
        + '<span class="badge mic" hidden>mic muted</span><span class="badge cam" hidden>camera off</span></figcaption>';
      tiles.appendChild(el);
    }
    el.querySelector(".name").textContent = p.identity + (p.state === "connected" ? "" : " (" + p.state + ")");
    el.classList.toggle("speaking", p.sid === S.dominantSpeaker);
    const tracks = Object.values(p.tracks);
    el.querySelector(".mic").hidden = !tracks.some(t => t.kind === "audio" && !t.enabled);
    el.querySelector(".cam").hidden = !tracks.some(t => t.kind === "video" && !t.enabled);
    for (const [mid, s] of Object.entries(S.slots)) {
      const tx = s.participantSid === p.sid && transceiver(mid);
      if (!tx) continue;
      const media = el.querySelector(tx.receiver.track.kind === "video" ? "video" : "audio");
      if (media.srcObject && media.srcObject.getTracks()[0] === tx.receiver.track) continue;
      media.srcObject = new MediaStream([tx.receiver.track]);
      media.play().catch(() => { $("unmute").hidden = false; });
    }
    meshRender(p, el);
  }
}
function setButtons(on) { for (const id of ["mic", "cam", "leave"]) $(id).disabled = !on; }
function enable(kind, on) {
  const s = sent.find(s => s.kind === kind);
  if (!s || S.phase !== "joined") return;
  s.tx.sender.track.enabled = on;
  if (kind === "audio") S.micEnabled = on; else S.cameraEnabled = on;
  const sid = S.published[s.tx.mid] || meshSids[s.name];
  if (sid) send({type: "room.trackEnabled", trackSid: sid, enabled: on});
  const button = $(kind === "audio" ? "mic" : "cam");
  button.setAttribute("aria-pressed", String(!on));
  button.textContent = kind === "audio" ? (on ? "Mute mic" : "Unmute mic") : (on ? "Camera off" : "Camera on");
}
function leave() {
  if (S.phase !== "joined") return;
  send({type: "room.leave"});
  S.phase = "left";
  S.timing.left = now();
  for (const channel of Object.values(channels)) channel.close();
  $("say").hidden = true;
  closeMedia();
  if (stream) stream.getTracks().forEach(t => t.stop());
  ws.close(1000, "left the room");
  setButtons(false);
  status();
}

// getStats() of each receive slot that carries a remote track (inbound-rtp).
async function stats() {
  if (S.mesh) return meshStats();
  const rows = [];
  for (const [mid, s] of Object.entries(S.slots)) {
    const tx = transceiver(mid);
    if (!tx || !pc || pc.signalingState === "closed") continue;
    let r = null;
    (await tx.receiver.getStats()).forEach(x => { if (x.type === "inbound-rtp") r = x; });
    rows.push(inboundRow({mid, trackSid: s.trackSid, participantSid: s.participantSid}, tx.receiver.track.kind, r));
  }
  return rows;
}
// One stats() row: `head` (mid, trackSid, participantSid), the identity, and inbound-rtp `r` (null before any packet).
function inboundRow(head, kind, r) {
  const p = S.participants[head.participantSid];
  const row = Object.assign({kind}, head, {identity: p ? p.identity : null, packetsReceived: r ? r.packetsReceived : 0,
                 bytesReceived: r ? r.bytesReceived : 0, packetsLost: r ? r.packetsLost : 0, jitter: r ? r.jitter : null});
  if (kind === "video") return Object.assign(row, {framesDecoded: r ? r.framesDecoded || 0 : 0, frameWidth: r ? r.frameWidth : null,
    frameHeight: r ? r.frameHeight : null, framesPerSecond: r ? r.framesPerSecond : null, keyFramesDecoded: r ? r.keyFramesDecoded : 0});
  return Object.assign(row, {totalAudioEnergy: r ? r.totalAudioEnergy || 0 : 0, audioLevel: r ? r.audioLevel : null,
    totalSamplesReceived: r ? r.totalSamplesReceived : 0, concealedSamples: r ? r.concealedSamples : 0});
}
// outbound-rtp of our published sections.
async function localStats() {
  if (S.mesh) return meshLocalStats();
  const rows = [];
  let available = null;  // the send-side bandwidth estimate on the selected pair (bits/s)
  if (pc && pc.signalingState !== "closed") {
    (await pc.getStats()).forEach(x => { if (x.type === "candidate-pair" && x.nominated && x.availableOutgoingBitrate) available = x.availableOutgoingBitrate; });
  }
  for (const s of sent) {
    if (!pc || pc.signalingState === "closed") break;
    let r = null;
    const outs = [];  // one per simulcast layer
    (await s.tx.sender.getStats()).forEach(x => { if (x.type === "outbound-rtp") { r = x; outs.push(x); } });
    const layerRows = outs.filter(x => x.rid).map(x => ({rid: x.rid, frameWidth: x.frameWidth || null, frameHeight: x.frameHeight || null,
                                                       bytesSent: x.bytesSent, framesEncoded: x.framesEncoded || 0}));
    rows.push({mid: s.tx.mid, name: s.name, kind: s.kind, trackSid: S.published[s.tx.mid] || null, layers: layerRows,
               packetsSent: r ? r.packetsSent : 0, framesEncoded: r ? r.framesEncoded : null, frameWidth: r ? r.frameWidth : null,
               frameHeight: r ? r.frameHeight : null, qualityLimitationReason: r ? r.qualityLimitationReason : null,
               bytesSent: r ? r.bytesSent : 0, targetBitrate: r ? r.targetBitrate || null : null,
               availableOutgoingBitrate: available});
  }
  return rows;
}
// Records, per remote identity, when its first video frame was decoded and its first audio arrived.
async function watchFirstMedia() {
  while (S.phase === "joined") {
    for (const r of await stats()) {
      if (!r.identity) continue;
      const firsts = r.kind === "video" ? S.timing.firstRemoteFrame : S.timing.firstRemoteAudio;
      const got = r.kind === "video" ? r.framesDecoded > 0 : r.packetsReceived > 0;
      const since = Math.max(S.timing.joinSent, S.timing.arrived[r.identity] || 0);
      if (got && firsts[r.identity] === undefined) firsts[r.identity] = now() - since;
    }
    await new Promise(resolve => setTimeout(resolve, 200));
  }
}

"""# + RoomPageMeshScript.source + #"""
for (const [name, fn] of Object.entries({stats, localStats, candidatePairs, leave, sendData, dataChannel: name => channels[name],
                                          setMic: on => enable("audio", on), setCamera: on => enable("video", on)}))
  Object.defineProperty(S, name, {value: fn, enumerable: false});
$("mic").onclick = () => enable("audio", !S.micEnabled);
$("cam").onclick = () => enable("video", !S.cameraEnabled);
$("leave").onclick = leave;
$("say").onsubmit = ev => { ev.preventDefault(); const t = $("text").value; if (t && sendData(t)) $("text").value = ""; };
$("unmute").onclick = () => { for (const m of document.querySelectorAll("audio, video")) m.play().catch(() => {}); $("unmute").hidden = true; };
$("title").textContent = roomName;
// A refused token (20101-20157) brings the token box back for another try.
const start = token => join(token).catch(e => {
  busy = false;
  fail(e);
  if (e && e.code >= 20100 && e.code < 20200) $("join").hidden = false;
});
$("join").onsubmit = ev => { ev.preventDefault(); const t = $("token").value.trim(); if (t) start(t); };
const fromFragment = fragment.get("token");
if (fromFragment) {
  history.replaceState(null, "", location.pathname + location.search);  // keep the token out of the address bar and history
  start(fromFragment);
} else {
  $("join").hidden = false;
}
status();
})();
"""#
}
