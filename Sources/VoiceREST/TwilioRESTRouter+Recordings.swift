import AccessToken
import Foundation
import HTTPWire
import ParleyCore
import ParleyStore
import PlatformCore
import ServerMedia

/// `Recordings.json`, `Calls/{CA}/Recordings.json`, `Recordings/{RE}.json|.wav|.mp3` and
/// `Calls/{CA}/Recordings/{RE}.json`.
extension TwilioRESTRouter {
    /// Recordings larger than this are not served from memory (about 3.5 hours of 8 kHz mono 16-bit audio).
    static let maxMediaBytes = 200 * 1024 * 1024

    func listRecordings(_ context: Context, callSid: String?) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET")
        let p = context.parameters
        let paging = try RESTPaging(p)
        let callFilter = callSid ?? p["CallSid"].flatMap { $0.isEmpty ? nil : $0 }
        let created = try RESTCallFilters.bounds(p, "DateCreated")
        let accountSid = context.account.sid
        let all = try storeCall { () throws(StoreError) in try store.recordings(accountSid: accountSid, callSid: callFilter) }
            .filter { r in created.lower.map { r.createdAt >= $0 } ?? true && created.upper.map { r.createdAt <= $0 } ?? true }
        let page = paging.slice(all)
        let base = publicBaseURL()
        let records = page.records.map { RESTResourceJSON.recording($0, mediaBase: base, underCall: callSid != nil) }
        var filters: [(String, String)] = []
        for name in ["CallSid", "DateCreated", "DateCreated>", "DateCreated<"] where callSid == nil {
            if let value = p[name], !value.isEmpty { filters.append((name, value)) }
        }
        return Self.json(paging.envelope(key: "recordings", records: records, hasMore: page.hasMore, path: context.path,
                                         filters: filters))
    }

    /// `name` is `RE….json` (the resource: GET, DELETE), `RE….wav`, `RE….mp3` or `RE…` (the audio).
    func recording(_ context: Context, name: String, callSid: String?) throws(RESTFailure) -> HTTPResponse {
        guard let sid = Self.stripJSON(name) else {
            try Self.allow(context, "GET")
            guard callSid == nil else { throw .notFound(context.path) }
            return try recordingMedia(name: name, accountSid: context.account.sid, path: context.path)
        }
        try Self.allow(context, "GET, DELETE")
        guard let recording = try storeCall({ () throws(StoreError) in try store.recording(sid: sid) }),
              recording.accountSid == context.account.sid, callSid == nil || recording.callSid == callSid else {
            throw .notFound(context.path)
        }
        if context.method == "DELETE" {
            // The row first: once it is gone nothing serves the files, which then go too.
            guard try storeCall({ () throws(StoreError) in try store.deleteRecording(sid: sid) }) else {
                throw .notFound(context.path)
            }
            RecordingMedia.removeFiles(of: recording)
            return .status(204)
        }
        return Self.json(RESTResourceJSON.recording(recording, mediaBase: publicBaseURL(), underCall: callSid != nil))
    }

    /// The audio of `RE…`, `RE….wav` (the WAV file) or `RE….mp3` (MP3, encoded on first request)
    /// if it belongs to `accountSid`; other extensions are 404.
    func recordingMedia(name: String, accountSid: String, path: String) throws(RESTFailure) -> HTTPResponse {
        let format: RecordingMedia.Format = name.hasSuffix(".mp3") ? .mp3 : .wav
        let sid = name.hasSuffix(".wav") || name.hasSuffix(".mp3") ? String(name.dropLast(4)) : name
        guard SID.isValid(sid, prefix: "RE"),
              let recording = try storeCall({ () throws(StoreError) in try store.recording(sid: sid) }),
              recording.accountSid == accountSid else { throw .notFound(path) }
        do {
            let bytes = try RecordingMedia.bytes(of: recording, format: format, maxWAVBytes: Self.maxMediaBytes)
            return HTTPResponse(status: 200, headers: ["Content-Type": format.contentType], body: bytes)
        } catch {
            if case .unreadable = error { throw .notFound(path) }
            Log.error(.platform, "recording \(sid): \(error)")
            throw RESTFailure(status: 500, code: .restInternalServer, message: "Internal server error")
        }
    }
}
