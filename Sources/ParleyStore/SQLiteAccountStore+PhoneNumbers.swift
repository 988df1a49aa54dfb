import Synchronization

/// `IncomingPhoneNumbers` (`PN…`) in the `phone_numbers` table.
extension SQLiteAccountStore: PhoneNumberStore {
    static let phoneNumberColumns = """
        SELECT sid, account_sid, phone_number, friendly_name, voice_url, voice_method, status_callback,
        status_callback_method, created_at, updated_at FROM phone_numbers
        """

    static func phoneNumber(_ row: [SQLValue]) -> IncomingPhoneNumber {
        let draft = PhoneNumberDraft(phoneNumber: row[2].string ?? "", friendlyName: row[3].string ?? "", voiceURL: row[4].string,
                                     voiceMethod: row[5].string ?? "POST", statusCallback: row[6].string,
                                     statusCallbackMethod: row[7].string ?? "POST")
        return IncomingPhoneNumber(sid: row[0].string ?? "", accountSid: row[1].string ?? "", draft: draft,
                                   createdAt: row[8].int64 ?? 0, updatedAt: row[9].int64 ?? 0)
    }

    public func createPhoneNumber(_ draft: PhoneNumberDraft, accountSid: String) throws(StoreError) -> IncomingPhoneNumber {
        let time = now()
        let number = IncomingPhoneNumber(sid: SID.make("PN"), accountSid: accountSid, draft: draft, createdAt: time, updatedAt: time)
        try db.withLock { (d) throws(StoreError) in
            do throws(StoreError) {
                try d.execute("""
                    INSERT INTO phone_numbers (sid, account_sid, phone_number, friendly_name, voice_url, voice_method,
                    status_callback, status_callback_method, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                    """, [.text(number.sid), .text(accountSid), .text(draft.phoneNumber), .text(draft.friendlyName),
                          VoiceRows.optional(draft.voiceURL), .text(draft.voiceMethod), VoiceRows.optional(draft.statusCallback),
                          .text(draft.statusCallbackMethod), .integer(time), .integer(time)])
            } catch {
                throw VoiceRows.mapInsertError(error, what: "phone number \(draft.phoneNumber)", accountSid: accountSid)
            }
        }
        return number
    }

    public func phoneNumber(sid: String) throws(StoreError) -> IncomingPhoneNumber? {
        try db.withLock { (d) throws(StoreError) -> IncomingPhoneNumber? in
            try d.query("\(Self.phoneNumberColumns) WHERE sid = ?1", [.text(sid)]).first.map(Self.phoneNumber)
        }
    }

    public func phoneNumber(number: String) throws(StoreError) -> IncomingPhoneNumber? {
        try db.withLock { (d) throws(StoreError) -> IncomingPhoneNumber? in
            try d.query("\(Self.phoneNumberColumns) WHERE phone_number = ?1", [.text(number)]).first.map(Self.phoneNumber)
        }
    }

    public func phoneNumbers(accountSid: String, phoneNumber: String?) throws(StoreError) -> [IncomingPhoneNumber] {
        try db.withLock { (d) throws(StoreError) -> [IncomingPhoneNumber] in
            let rows = if let phoneNumber {
                try d.query("\(Self.phoneNumberColumns) WHERE account_sid = ?1 AND phone_number = ?2 ORDER BY created_at, rowid",
                            [.text(accountSid), .text(phoneNumber)])
            } else {
                try d.query("\(Self.phoneNumberColumns) WHERE account_sid = ?1 ORDER BY created_at, rowid", [.text(accountSid)])
            }
            return rows.map(Self.phoneNumber)
        }
    }

    public func updatePhoneNumber(_ number: IncomingPhoneNumber) throws(StoreError) -> IncomingPhoneNumber {
        let time = now()
        let draft = number.draft
        return try db.withLock { (d) throws(StoreError) -> IncomingPhoneNumber in
            do throws(StoreError) {
                try d.execute("""
                    UPDATE phone_numbers SET phone_number = ?2, friendly_name = ?3, voice_url = ?4, voice_method = ?5,
                    status_callback = ?6, status_callback_method = ?7, updated_at = ?8 WHERE sid = ?1
                    """, [.text(number.sid), .text(draft.phoneNumber), .text(draft.friendlyName), VoiceRows.optional(draft.voiceURL),
                          .text(draft.voiceMethod), VoiceRows.optional(draft.statusCallback), .text(draft.statusCallbackMethod),
                          .integer(time)])
            } catch {
                throw VoiceRows.mapInsertError(error, what: "phone number \(draft.phoneNumber)", accountSid: number.accountSid)
            }
            guard d.changes == 1, let row = try d.query("\(Self.phoneNumberColumns) WHERE sid = ?1", [.text(number.sid)]).first
            else { throw .notFound("phone number \(number.sid)") }
            return Self.phoneNumber(row)
        }
    }

    public func deletePhoneNumber(sid: String) throws(StoreError) -> Bool {
        try db.withLock { (d) throws(StoreError) -> Bool in
            try d.execute("DELETE FROM phone_numbers WHERE sid = ?1", [.text(sid)])
            return d.changes == 1
        }
    }
}
