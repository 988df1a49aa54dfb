import Synchronization

/// The typed values of the headers every layer reads — Via, From, To, Call-ID, CSeq, Contact —
/// parsed once per message: by ``SIPMessageContent/validate()`` or the first read, whichever
/// comes first (a failure is kept too). Copies of a message share it until their header fields
/// change, which gives the copy a new, empty one. Opaque outside SIPWire.
public final class SIPHeaderCache: Sendable {
    private struct Values {
        var vias: Result<[SIPVia], SIPParseError>?
        var from: Result<SIPNameAddress?, SIPParseError>?
        var to: Result<SIPNameAddress?, SIPParseError>?
        var callID: Result<SIPCallID?, SIPParseError>?
        var cseq: Result<SIPCSeq?, SIPParseError>?
        var contacts: Result<[SIPContact], SIPParseError>?
    }

    private let values = Mutex(Values())

    init() {}

    func vias(_ headers: SIPHeaders) throws(SIPParseError) -> [SIPVia] {
        try value(\.vias) { () throws(SIPParseError) in try headers.all("Via", as: SIPVia.self) }
    }

    /// The Vias if they were parsed already (and parsed).
    var parsedVias: [SIPVia]? {
        if case .success(let vias)? = values.withLock({ $0.vias }) { vias } else { nil }
    }

    func from(_ headers: SIPHeaders) throws(SIPParseError) -> SIPNameAddress? {
        try value(\.from) { () throws(SIPParseError) in try headers.first("From", as: SIPNameAddress.self) }
    }

    func to(_ headers: SIPHeaders) throws(SIPParseError) -> SIPNameAddress? {
        try value(\.to) { () throws(SIPParseError) in try headers.first("To", as: SIPNameAddress.self) }
    }

    func callID(_ headers: SIPHeaders) throws(SIPParseError) -> SIPCallID? {
        try value(\.callID) { () throws(SIPParseError) in try headers.first("Call-ID", as: SIPCallID.self) }
    }

    func cseq(_ headers: SIPHeaders) throws(SIPParseError) -> SIPCSeq? {
        try value(\.cseq) { () throws(SIPParseError) in try headers.first("CSeq", as: SIPCSeq.self) }
    }

    func contacts(_ headers: SIPHeaders) throws(SIPParseError) -> [SIPContact] {
        try value(\.contacts) { () throws(SIPParseError) in try headers.all("Contact", as: SIPContact.self) }
    }

    /// The value at `slot`, parsed with `parse` the first time (outside the lock).
    private func value<T: Sendable>(_ slot: any WritableKeyPath<Values, Result<T, SIPParseError>?> & Sendable,
                                    _ parse: () throws(SIPParseError) -> T) throws(SIPParseError) -> T {
        if let cached = values.withLock({ $0[keyPath: slot] }) { return try cached.get() }
        let result: Result<T, SIPParseError>
        do throws(SIPParseError) { result = .success(try parse()) } catch { result = .failure(error) }
        values.withLock { $0[keyPath: slot] = result }
        return try result.get()
    }
}

extension SIPMessageContent {
    func parsedVias() throws(SIPParseError) -> [SIPVia] {
        if let headerCache { try headerCache.vias(headers) } else { try headers.all("Via", as: SIPVia.self) }
    }

    func parsedFrom() throws(SIPParseError) -> SIPNameAddress? {
        if let headerCache { try headerCache.from(headers) } else { try headers.first("From", as: SIPNameAddress.self) }
    }

    func parsedTo() throws(SIPParseError) -> SIPNameAddress? {
        if let headerCache { try headerCache.to(headers) } else { try headers.first("To", as: SIPNameAddress.self) }
    }

    func parsedCallID() throws(SIPParseError) -> SIPCallID? {
        if let headerCache { try headerCache.callID(headers) } else { try headers.first("Call-ID", as: SIPCallID.self) }
    }

    func parsedCSeq() throws(SIPParseError) -> SIPCSeq? {
        if let headerCache { try headerCache.cseq(headers) } else { try headers.first("CSeq", as: SIPCSeq.self) }
    }

    func parsedContacts() throws(SIPParseError) -> [SIPContact] {
        if let headerCache { try headerCache.contacts(headers) } else { try headers.all("Contact", as: SIPContact.self) }
    }
}
