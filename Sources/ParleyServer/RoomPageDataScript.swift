/// The room page's data track part (`RoomPageScript` includes it inside its closure): messages
/// kept and listed with their sender, the channels the server opens toward us (group rooms: one per
/// remote data track, labelled with its SID), and `sendData`, which sends on our track's channel
/// (in a peer-to-peer room, on each peer's channel of the track: `RoomPageMeshScript`).
enum RoomPageDataScript {
    static let source = #"""
// Data tracks: a message on a channel the server opened toward us (label: the remote track's SID).
function ownerOf(trackSid) {
  for (const p of Object.values(S.participants)) if (p.tracks[trackSid]) return {p, t: p.tracks[trackSid]};
  return null;
}
function keep(message) {
  S.messages.push(message);
  if (S.messages.length > 200) S.messages.shift();
  const li = document.createElement("li");
  const who = document.createElement("b");
  who.textContent = message.local ? "you" : (message.from || "?");
  li.append(who, ": " + (message.binary ? "(" + message.text.length + " bytes)" : message.text));
  const list = $("messages");
  list.appendChild(li);
  while (list.children.length > 200) list.firstChild.remove();
  list.scrollTop = list.scrollHeight;
}
function receiveChannel(channel) {
  channel.binaryType = "arraybuffer";
  const r = S.remoteData[channel.label] = {state: channel.readyState, messages: 0, bytes: 0, firstAtEpoch: null, lastAtEpoch: null};
  channel.onopen = channel.onclose = () => { r.state = channel.readyState; };
  channel.onmessage = ev => {
    const owner = ownerOf(channel.label);
    const binary = typeof ev.data !== "string";
    const at = performance.timeOrigin + performance.now();
    r.messages++; r.bytes += binary ? ev.data.byteLength : ev.data.length;
    if (r.firstAtEpoch === null) r.firstAtEpoch = at;
    r.lastAtEpoch = at;
    if (ev.data.length > 4 && ev.data.startsWith && ev.data.startsWith("bulk")) return;  // counted only (throughput runs)
    keep({from: owner ? owner.p.identity : null, participantSid: owner ? owner.p.sid : null, trackSid: channel.label,
          track: owner ? owner.t.name : null, text: binary ? Array.from(new Uint8Array(ev.data)).join(",") : ev.data, binary,
          local: false, at: now(), atEpoch: at});
  };
}
function sendData(text, name = "chat") {
  const open = (S.mesh ? meshDataChannels(name) : [channels[name]]).filter(c => c && c.readyState === "open");
  if (!open.length) return false;
  for (const channel of open) channel.send(text);
  keep({from: S.identity, participantSid: S.participantSid, trackSid: null, track: name, text, binary: false, local: true,
        at: now(), atEpoch: performance.timeOrigin + performance.now()});
  return true;
}
"""#
}
