/// The room page's peer-to-peer part (`RoomPageScript` includes it inside its closure): in a
/// `peer-to-peer` or `go` room the server carries no media, so after `room.joined` the page drops
/// its offer to the server and builds one `RTCPeerConnection` per remote participant (a mesh),
/// negotiated over the relayed `room.peerOffer`, `room.peerAnswer` and `room.peerCandidate`
/// (docs/signaling.md §12, "Peer-to-peer rooms"), with the `iceServers` of `room.joined`.
///
/// The newer participant of a pair offers first (it learns the older ones from `room.joined`);
/// after that either side may offer, and glare is resolved as in WebRTC's perfect negotiation
/// (the older participant is polite: it rolls its own offer back). ICE that fails is restarted
/// (`restartIce()`). `#relay=1` in the fragment sets `iceTransportPolicy: "relay"`, so every pair
/// goes through TURN. Each peer's messages are handled in order, one at a time.
///
/// Data tracks go peer to peer too: each pair's connection carries one negotiated data channel
/// per data track of the page (`negotiated: true`, ids in `dataTracks` order, so no DCEP round
/// trip), and `sendData` sends on every peer's channel of the track.
///
/// The speaking indicator comes from the audio levels the page measures itself (the server hears
/// nothing): the loudest participant (us included) over a threshold takes it and keeps it
/// through silence, as `room.dominantSpeaker` does. `S.mesh` is the mesh's state (no
/// credentials in it); `candidatePairs()` lists each peer's selected ICE candidate pair.
enum RoomPageMeshScript {
    static let source = #"""
// ---- peer-to-peer rooms: a mesh of peer connections (RoomPageMeshScript) ----
const relayOnly = fragment.get("relay") === "1";
const peers = new Map();     // remote participant SID -> {pc, polite, makingOffer, ignoreOffer, queue, remoteMids, remote}
const early = [];            // room.peer* that came before startMesh
const meshSids = {};         // our track name -> its SID
let meshServers = [], nextRelay = 1;
const isMesh = type => type === "peer-to-peer" || type === "go";

function relay(type, sid, body) {
  send(Object.assign({type, id: "p" + nextRelay++, participantSid: sid}, body));
}
function meshPublished(conn) {
  const names = new Map(sent.map(s => [s.tx.sender.track, s.name]));
  return conn.getTransceivers().filter(t => t.mid !== null && t.sender.track && names.has(t.sender.track))
    .map(t => ({mid: t.mid, trackSid: meshSids[names.get(t.sender.track)]})).filter(p => p.trackSid);
}
function peerState(sid) { return S.mesh.peers[sid]; }
function addTracks(p) {
  if (p.tracksAdded || !stream) return;
  p.tracksAdded = true;
  for (const t of stream.getTracks()) p.pc.addTrack(t, stream);
}
function peer(sid, polite) {
  let p = peers.get(sid);
  if (p) return p;
  const conn = new RTCPeerConnection({iceServers: meshServers, iceTransportPolicy: relayOnly ? "relay" : "all",
                                      bundlePolicy: "max-bundle", rtcpMuxPolicy: "require"});
  p = {sid, pc: conn, polite, makingOffer: false, ignoreOffer: false, queue: Promise.resolve(), remoteMids: {}, remote: {},
       channels: {}};
  peers.set(sid, p);
  dataTracks.forEach((d, i) => meshChannel(p, d.name, conn.createDataChannel(d.name, Object.assign({}, d.options, {negotiated: true, id: i}))));
  S.mesh.peers[sid] = {polite, connectionState: "new", iceConnectionState: "new", signalingState: "stable",
                       offers: 0, answers: 0, restarts: 0, candidatesSent: 0, candidatesReceived: 0};
  conn.onnegotiationneeded = async () => {
    try {
      p.makingOffer = true;
      await conn.setLocalDescription();
      peerState(sid).offers++;
      relay("room.peerOffer", sid, {sdp: conn.localDescription.sdp, published: meshPublished(conn)});
    } catch (e) { meshError(sid, e); } finally { p.makingOffer = false; }
  };
  conn.onicecandidate = ({candidate: c}) => {
    if (!S.mesh || !peers.has(sid)) return;
    peerState(sid).candidatesSent++;
    relay("room.peerCandidate", sid, c ? {candidate: c.candidate, sdpMid: c.sdpMid, sdpMLineIndex: c.sdpMLineIndex,
                                          usernameFragment: c.usernameFragment} : {candidate: ""});
  };
  conn.onconnectionstatechange = () => { if (peers.get(sid) === p) { peerState(sid).connectionState = conn.connectionState; status(); } };
  conn.oniceconnectionstatechange = () => {
    if (peers.get(sid) !== p) return;
    peerState(sid).iceConnectionState = conn.iceConnectionState;
    if (conn.iceConnectionState === "failed") { peerState(sid).restarts++; conn.restartIce(); }
  };
  conn.onsignalingstatechange = () => { if (peers.get(sid) === p) peerState(sid).signalingState = conn.signalingState; };
  conn.ontrack = ev => { p.remote[ev.track.kind] = {track: ev.track, mid: ev.transceiver.mid}; render(); };
  return p;
}
// A data track's channel toward one peer: its messages are that participant's on its track of that name.
function meshChannel(p, name, channel) {
  channel.binaryType = "arraybuffer";
  p.channels[name] = channel;
  channel.onopen = channel.onclose = () => {
    S.dataChannels[name] = meshDataChannels(name).some(c => c.readyState === "open") ? "open" : channel.readyState;
    $("say").hidden = S.dataChannels.chat !== "open";
  };
  channel.onmessage = ev => {
    const who = S.participants[p.sid];
    const trackSid = who ? Object.keys(who.tracks).find(sid => who.tracks[sid].name === name && who.tracks[sid].kind === "data") : null;
    const binary = typeof ev.data !== "string";
    keep({from: who ? who.identity : null, participantSid: p.sid, trackSid: trackSid || null, track: name,
          text: binary ? Array.from(new Uint8Array(ev.data)).join(",") : ev.data, binary, local: false, at: now(),
          atEpoch: performance.timeOrigin + performance.now()});
  };
}
function meshDataChannels(name) { return [...peers.values()].map(p => p.channels[name]).filter(c => c); }
function meshError(sid, e) {
  S.mesh.errors.push({participantSid: sid, message: String(e && e.message || e), at: now()});
  if (S.mesh.errors.length > 20) S.mesh.errors.shift();
}
function dropPeer(sid) {
  const p = peers.get(sid);
  if (!p) return;
  peers.delete(sid);
  p.pc.close();
  delete S.mesh.peers[sid];
}
function meshStatus() {
  const all = Object.values(S.mesh.peers);
  return "peer to peer" + (relayOnly ? " (relay)" : "") + ", " + all.filter(p => p.connectionState === "connected").length
    + "/" + all.length + " connected";
}
function meshClose() { for (const sid of [...peers.keys()]) dropPeer(sid); }

// After room.joined in a peer-to-peer room: we are the newer participant toward everyone listed.
function startMesh(joined) {
  if (pc) { pc.close(); pc = null; }
  meshServers = (joined.iceServers || []).map(s => ({urls: s.urls, username: s.username, credential: s.credential}));
  S.mesh = {relay: relayOnly, iceServerUrls: meshServers.flatMap(s => s.urls), peers: {}, errors: [], relayErrors: []};
  S.connectionState = "mesh";
  for (const t of joined.participant.tracks || []) if (t.sid) meshSids[t.name] = t.sid;
  for (const p of joined.participants || []) addTracks(peer(p.sid, false));  // negotiationneeded makes our offer
  for (const m of early.splice(0)) meshReceive(m);
  listenForSpeakers();
}

// Relayed messages (in order per peer) and errors about them; false: not ours, or the page's own handler runs too.
function meshReceive(m) {
  if (m.type === "error" && typeof m.ref === "string" && m.ref[0] === "p") {
    if (S.mesh) S.mesh.relayErrors.push({code: m.code, message: m.message, at: now()});
    return true;
  }
  if (m.type === "room.participantDisconnected" && S.mesh) { dropPeer(m.participantSid); return false; }
  if (!m.type.startsWith("room.peer")) return false;
  if (!S.mesh) { if (S.phase === "joining" && early.length < 200) early.push(m); return true; }
  const sid = m.participantSid;
  const p = peers.get(sid) || peer(sid, true);  // an offer from someone newer: we are the polite one
  p.queue = p.queue.then(() => onPeerMessage(p, m)).catch(e => meshError(sid, e));
  return true;
}
async function onPeerMessage(p, m) {
  if (peers.get(p.sid) !== p) return;
  const conn = p.pc, state = peerState(p.sid);
  if (m.type === "room.peerCandidate") {
    state.candidatesReceived++;
    if (!m.candidate) return;  // end of candidates
    try {
      await conn.addIceCandidate({candidate: m.candidate, sdpMid: m.sdpMid ?? null, sdpMLineIndex: m.sdpMLineIndex ?? null,
                                  usernameFragment: m.usernameFragment ?? null});
    } catch (e) { if (!p.ignoreOffer) throw e; }
    return;
  }
  const type = m.type === "room.peerOffer" ? "offer" : "answer";
  const collision = type === "offer" && (p.makingOffer || conn.signalingState !== "stable");
  p.ignoreOffer = !p.polite && collision;
  if (p.ignoreOffer) return;
  for (const x of m.published || []) p.remoteMids[x.mid] = x.trackSid;
  await conn.setRemoteDescription({type, sdp: m.sdp});  // a polite collision rolls our offer back
  addTracks(p);  // the answerer's tracks take the offered transceivers
  if (type === "offer") {
    await conn.setLocalDescription();
    state.answers++;
    relay("room.peerAnswer", p.sid, {sdp: conn.localDescription.sdp, published: meshPublished(conn)});
  }
}

// Tiles: the remote tracks of the participant's peer connection.
function meshRender(participant, el) {
  const p = peers.get(participant.sid);
  if (!p) return;
  for (const [kind, r] of Object.entries(p.remote)) {
    const media = el.querySelector(kind === "video" ? "video" : "audio");
    if (media.srcObject && media.srcObject.getTracks()[0] === r.track) continue;
    media.srcObject = new MediaStream([r.track]);
    media.play().catch(() => { $("unmute").hidden = false; });
  }
}

// inbound-rtp of each peer's remote tracks, in the rows stats() gives in group rooms.
async function meshStats() {
  const rows = [];
  for (const p of peers.values()) {
    if (p.pc.signalingState === "closed") continue;
    for (const [kind, r] of Object.entries(p.remote)) {
      const tx = p.pc.getTransceivers().find(t => t.receiver.track === r.track);
      if (!tx) continue;
      let x = null;
      (await tx.receiver.getStats()).forEach(s => { if (s.type === "inbound-rtp") x = s; });
      rows.push(inboundRow({mid: tx.mid, trackSid: p.remoteMids[tx.mid] || null, participantSid: p.sid}, kind, x));
    }
  }
  return rows;
}
// outbound-rtp of our tracks, one row per peer and track.
async function meshLocalStats() {
  const rows = [];
  for (const p of peers.values()) {
    if (p.pc.signalingState === "closed") continue;
    for (const s of sent) {
      const sender = p.pc.getSenders().find(x => x.track === s.tx.sender.track);
      if (!sender) continue;
      let r = null;
      (await sender.getStats()).forEach(x => { if (x.type === "outbound-rtp") r = x; });
      rows.push({participantSid: p.sid, name: s.name, kind: s.kind, trackSid: meshSids[s.name] || null,
                 packetsSent: r ? r.packetsSent : 0, framesEncoded: r ? r.framesEncoded : null, frameWidth: r ? r.frameWidth : null,
                 frameHeight: r ? r.frameHeight : null, bytesSent: r ? r.bytesSent : 0, targetBitrate: r ? r.targetBitrate || null : null});
    }
  }
  return rows;
}
// Each peer's selected candidate pair (RTCIceCandidatePairStats and its two candidates).
async function candidatePairs() {
  const rows = [];
  for (const p of peers.values()) {
    if (p.pc.signalingState === "closed") continue;
    const all = new Map();
    (await p.pc.getStats()).forEach(s => all.set(s.id, s));
    let pair = null;
    for (const s of all.values()) if (s.type === "transport" && s.selectedCandidatePairId) pair = all.get(s.selectedCandidatePairId);
    const local = pair && all.get(pair.localCandidateId), remote = pair && all.get(pair.remoteCandidateId);
    const who = S.participants[p.sid];
    rows.push({participantSid: p.sid, identity: who ? who.identity : null, state: pair ? pair.state : null,
               local: local ? local.candidateType : null, remote: remote ? remote.candidateType : null,
               localAddress: local ? local.address + ":" + local.port : null, remoteAddress: remote ? remote.address + ":" + remote.port : null,
               protocol: local ? local.protocol : null, relayProtocol: local ? local.relayProtocol || null : null,
               bytesSent: pair ? pair.bytesSent : 0, bytesReceived: pair ? pair.bytesReceived : 0});
  }
  return rows;
}

// The speaking indicator from our own measurements: levels smoothed over ~300 ms; the loudest over
// 0.02 (about -34 dBov) takes the floor and keeps it through silence.
async function listenForSpeakers() {
  const smoothed = {};
  while (S.mesh && S.phase === "joined") {
    const levels = {};
    for (const p of peers.values()) {
      if (p.pc.signalingState === "closed") continue;
      (await p.pc.getStats()).forEach(s => {
        if (s.type === "inbound-rtp" && s.kind === "audio" && typeof s.audioLevel === "number") levels[p.sid] = s.audioLevel;
        if (s.type === "media-source" && s.kind === "audio" && typeof s.audioLevel === "number") levels[S.participantSid] = s.audioLevel;
      });
    }
    let best = null;
    for (const [sid, level] of Object.entries(levels)) {
      smoothed[sid] = 0.6 * (smoothed[sid] || 0) + 0.4 * level;
      if (smoothed[sid] > 0.02 && (!best || smoothed[sid] > smoothed[best])) best = sid;
    }
    for (const sid of Object.keys(smoothed)) if (sid !== S.participantSid && !peers.has(sid)) delete smoothed[sid];
    if (S.dominantSpeaker && !(S.dominantSpeaker in smoothed)) S.dominantSpeaker = null;
    const holder = S.dominantSpeaker;
    if (best && best !== holder && (!holder || smoothed[holder] < 0.02 || smoothed[best] > 1.5 * smoothed[holder])) {
      S.dominantSpeaker = best;
      render();
    }
    await new Promise(resolve => setTimeout(resolve, 100));
  }
}

"""#
}
