import AccessToken
import Foundation
import HTTPWire
import ParleyStore

/// `Recordings.json`, `Calls/{CA}/Recordings.json`, `Recordings/{RE}.json|.wav` and
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

    /// `name` is `RE….json` (the resource), `RE….wav` or `RE…` (the audio file).
    func recording(_ context: Context, name: String, callSid: String?) throws(RESTFailure) -> HTTPResponse {
        try Self.allow(context, "GET")
        guard let sid = Self.stripJSON(name) else {
            guard callSid == nil else { throw .notFound(context.path) }
            return try recordingMedia(name: name, accountSid: context.account.sid, path: context.path)
        }
        guard let recording = try storeCall({ () throws(StoreError) in try store.recording(sid: sid) }),
              recording.accountSid == context.account.sid, callSid == nil || recording.callSid == callSid else {
            throw .notFound(context.path)
        }
        return Self.json(RESTResourceJSON.recording(recording, mediaBase: publicBaseURL(), underCall: callSid != nil))
    }

    /// The WAV file of `RE….wav` or `RE…` if it belongs to `accountSid`; `.mp3` and other formats
    /// are 404 (Parley records WAV only).
    func recordingMedia(name: String, accountSid: String, path: String) throws(RESTFailure) -> HTTPResponse {
        let sid = name.hasSuffix(".wav") ? String(name.dropLast(4)) : name
        guard SID.isValid(sid, prefix: "RE"),
              let recording = try storeCall({ () throws(StoreError) in try store.recording(sid: sid) }),
              recording.accountSid == accountSid else { throw .notFound(path) }
        return try media(recording, path: path)
    }

    private func media(_ recording: RecordingRecord, path: String) throws(RESTFailure) -> HTTPResponse {
        let attributes = try? FileManager.default.attributesOfItem(atPath: recording.filePath)
        guard let size = (attributes?[.size] as? NSNumber)?.intValue, size <= Self.maxMediaBytes,
              let data = FileManager.default.contents(atPath: recording.filePath) else {
            throw .notFound(path)
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": "audio/x-wav"], body: Array(data))
    }
}
