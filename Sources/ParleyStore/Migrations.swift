/// Schema migrations, applied in order; `PRAGMA user_version` records how many have run.
enum Migrations {
    /// Each entry upgrades the schema from version `index` to `index + 1`.
    static let steps: [String] = [
        // 0 → 1: accounts and API keys.
        """
        CREATE TABLE accounts (
            sid TEXT PRIMARY KEY,
            friendly_name TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            is_default INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE api_keys (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            friendly_name TEXT NOT NULL,
            secret TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            revoked INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX api_keys_by_account ON api_keys(account_sid);
        """,
        // 1 → 2: account auth tokens (existing accounts get a random one: SQLite's randomblob reads
        // the OS CSPRNG through the VFS), applications, calls, push bindings, recordings.
        """
        ALTER TABLE accounts ADD COLUMN auth_token TEXT NOT NULL DEFAULT '';
        UPDATE accounts SET auth_token = lower(hex(randomblob(16))) WHERE auth_token = '';
        CREATE TABLE applications (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            friendly_name TEXT NOT NULL,
            voice_url TEXT,
            voice_method TEXT NOT NULL,
            status_callback TEXT,
            status_callback_method TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX applications_by_account ON applications(account_sid, friendly_name);
        CREATE TABLE calls (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            parent_call_sid TEXT,
            application_sid TEXT,
            from_address TEXT NOT NULL,
            to_address TEXT NOT NULL,
            direction TEXT NOT NULL,
            status TEXT NOT NULL,
            start_time INTEGER NOT NULL,
            answer_time INTEGER,
            end_time INTEGER,
            duration INTEGER,
            error_code INTEGER,
            error_message TEXT,
            status_callback TEXT,
            status_callback_method TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX calls_by_start ON calls(account_sid, start_time);
        CREATE INDEX calls_by_status ON calls(account_sid, status, start_time);
        CREATE INDEX calls_by_to ON calls(account_sid, to_address, start_time);
        CREATE INDEX calls_by_from ON calls(account_sid, from_address, start_time);
        CREATE INDEX calls_by_parent ON calls(parent_call_sid);
        CREATE TABLE push_bindings (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            identity TEXT NOT NULL,
            provider TEXT NOT NULL,
            device_token TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            UNIQUE (account_sid, identity, device_token)
        );
        CREATE TABLE recordings (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            call_sid TEXT NOT NULL,
            duration INTEGER NOT NULL,
            channels INTEGER NOT NULL,
            sample_rate INTEGER NOT NULL,
            status TEXT NOT NULL,
            file_path TEXT NOT NULL,
            source TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX recordings_by_account ON recordings(account_sid, created_at);
        CREATE INDEX recordings_by_call ON recordings(call_sid, created_at);
        """,
        // 2 → 3: Insights events the SDKs publish (and call feedback), per account.
        """
        CREATE TABLE insights_events (
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            identity TEXT NOT NULL,
            call_sid TEXT,
            event_group TEXT NOT NULL,
            name TEXT NOT NULL,
            level TEXT NOT NULL,
            timestamp_ms INTEGER NOT NULL,
            payload TEXT NOT NULL,
            received_at INTEGER NOT NULL
        );
        CREATE INDEX insights_by_call ON insights_events(account_sid, call_sid, timestamp_ms);
        CREATE INDEX insights_by_identity ON insights_events(account_sid, identity, timestamp_ms);
        """,
        // 3 → 4: when the server was last known to be running (its heartbeat), so a restart after a
        // crash can give the calls it left unfinished an end time.
        """
        CREATE TABLE server_liveness (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            alive_at INTEGER NOT NULL
        );
        """,
        // 4 → 5: video rooms, their participants and published tracks (the Rooms REST API).
        """
        CREATE TABLE rooms (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            unique_name TEXT NOT NULL,
            type TEXT NOT NULL,
            status TEXT NOT NULL,
            status_callback TEXT,
            status_callback_method TEXT NOT NULL,
            max_participants INTEGER NOT NULL,
            max_participant_duration INTEGER NOT NULL,
            record_participants_on_connect INTEGER NOT NULL,
            empty_room_timeout INTEGER NOT NULL,
            unused_room_timeout INTEGER NOT NULL,
            audio_only INTEGER NOT NULL,
            video_codecs TEXT NOT NULL,
            end_time INTEGER,
            duration INTEGER,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX rooms_by_account ON rooms(account_sid, created_at);
        CREATE UNIQUE INDEX rooms_in_progress_by_name ON rooms(account_sid, unique_name) WHERE status = 'in-progress';
        CREATE TABLE participants (
            sid TEXT PRIMARY KEY,
            room_sid TEXT NOT NULL REFERENCES rooms(sid),
            account_sid TEXT NOT NULL,
            identity TEXT NOT NULL,
            status TEXT NOT NULL,
            start_time INTEGER NOT NULL,
            end_time INTEGER,
            duration INTEGER,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX participants_by_room ON participants(room_sid, start_time);
        CREATE TABLE published_tracks (
            sid TEXT PRIMARY KEY,
            participant_sid TEXT NOT NULL REFERENCES participants(sid),
            room_sid TEXT NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            enabled INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX published_tracks_by_participant ON published_tracks(participant_sid, created_at);
        """,
        // 5 → 6: rooms' track recordings, compositions, and each room's recording rules.
        """
        CREATE TABLE room_recordings (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            room_sid TEXT NOT NULL,
            participant_sid TEXT NOT NULL,
            source_sid TEXT NOT NULL,
            track_name TEXT NOT NULL,
            kind TEXT NOT NULL,
            codec TEXT NOT NULL,
            container TEXT NOT NULL,
            status TEXT NOT NULL,
            duration INTEGER,
            size INTEGER,
            offset_ms INTEGER NOT NULL,
            file_path TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX room_recordings_by_account ON room_recordings(account_sid, created_at);
        CREATE INDEX room_recordings_by_room ON room_recordings(room_sid, created_at);
        CREATE TABLE compositions (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            room_sid TEXT NOT NULL,
            status TEXT NOT NULL,
            audio_sources TEXT NOT NULL,
            audio_sources_excluded TEXT NOT NULL,
            video_layout TEXT NOT NULL,
            resolution TEXT NOT NULL,
            format TEXT NOT NULL,
            trim INTEGER NOT NULL,
            status_callback TEXT,
            status_callback_method TEXT NOT NULL,
            duration INTEGER,
            size INTEGER,
            bitrate INTEGER,
            file_path TEXT,
            error_code INTEGER,
            error_message TEXT,
            created_at INTEGER NOT NULL,
            completed_at INTEGER,
            deleted_at INTEGER,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX compositions_by_account ON compositions(account_sid, created_at);
        CREATE TABLE recording_rules (
            room_sid TEXT PRIMARY KEY,
            rules TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        """,
        // 6 → 7: SIP registrations (issue 18): each address of record's contacts, in the registrar's order.
        """
        CREATE TABLE sip_bindings (
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            aor TEXT NOT NULL,
            position INTEGER NOT NULL,
            contact TEXT NOT NULL,
            expires_at INTEGER NOT NULL,
            q_millis INTEGER,
            call_id TEXT NOT NULL,
            cseq INTEGER NOT NULL,
            instance TEXT,
            reg_id INTEGER,
            source TEXT NOT NULL,
            PRIMARY KEY (account_sid, aor, position)
        );
        CREATE INDEX sip_bindings_by_expiry ON sip_bindings(expires_at);
        """,
        // 7 → 8: Plivo-style auth IDs for accounts (existing ones get a random one), and who may
        // use SIP: Plivo endpoints, Twilio credential lists and IP access control lists (one table,
        // by kind) with their entries, SIP domains and the lists mapped to them. Digest secrets
        // only: H(username:realm:password) in MD5 and SHA-256, never the password.
        """
        ALTER TABLE accounts ADD COLUMN auth_id TEXT NOT NULL DEFAULT '';
        UPDATE accounts SET auth_id = 'MA' || upper(hex(randomblob(9))) WHERE auth_id = '';
        CREATE UNIQUE INDEX accounts_by_auth_id ON accounts(auth_id);
        CREATE TABLE sip_endpoints (
            id TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            username TEXT NOT NULL UNIQUE,
            alias TEXT NOT NULL,
            application_sid TEXT,
            realm TEXT NOT NULL,
            ha1_md5 TEXT NOT NULL,
            ha1_sha256 TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX sip_endpoints_by_account ON sip_endpoints(account_sid, created_at);
        CREATE TABLE sip_lists (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            kind TEXT NOT NULL,
            friendly_name TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX sip_lists_by_account ON sip_lists(account_sid, kind, created_at);
        CREATE TABLE sip_credentials (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL,
            list_sid TEXT NOT NULL REFERENCES sip_lists(sid),
            username TEXT NOT NULL,
            realm TEXT NOT NULL,
            ha1_md5 TEXT NOT NULL,
            ha1_sha256 TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            UNIQUE (list_sid, username)
        );
        CREATE TABLE sip_ip_addresses (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL,
            list_sid TEXT NOT NULL REFERENCES sip_lists(sid),
            friendly_name TEXT NOT NULL,
            address TEXT NOT NULL,
            prefix_length INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX sip_ip_addresses_by_list ON sip_ip_addresses(list_sid, created_at);
        CREATE TABLE sip_domains (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            domain_name TEXT NOT NULL UNIQUE,
            friendly_name TEXT NOT NULL,
            voice_url TEXT,
            voice_method TEXT NOT NULL,
            voice_fallback_url TEXT,
            voice_fallback_method TEXT NOT NULL,
            voice_status_callback_url TEXT,
            voice_status_callback_method TEXT NOT NULL,
            sip_registration INTEGER NOT NULL,
            secure INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX sip_domains_by_account ON sip_domains(account_sid, created_at);
        CREATE TABLE sip_domain_mappings (
            domain_sid TEXT NOT NULL REFERENCES sip_domains(sid),
            kind TEXT NOT NULL,
            list_sid TEXT NOT NULL REFERENCES sip_lists(sid),
            account_sid TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (domain_sid, kind, list_sid)
        );
        CREATE INDEX sip_domain_mappings_by_list ON sip_domain_mappings(list_sid);
        """,
        // 8 → 9 (rooms, issue 16): each participant's subscribe rules as the REST API set them.
        """
        CREATE TABLE subscribe_rules (
            participant_sid TEXT PRIMARY KEY,
            room_sid TEXT NOT NULL,
            rules TEXT NOT NULL,
            updated_at INTEGER NOT NULL
        );
        """,
        // 9 → 10 (SIP trunks, issue 18): Twilio's IncomingPhoneNumbers, one account's each.
        """
        CREATE TABLE phone_numbers (
            sid TEXT PRIMARY KEY,
            account_sid TEXT NOT NULL REFERENCES accounts(sid),
            phone_number TEXT NOT NULL UNIQUE,
            friendly_name TEXT NOT NULL,
            voice_url TEXT,
            voice_method TEXT NOT NULL,
            status_callback TEXT,
            status_callback_method TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX phone_numbers_by_account ON phone_numbers(account_sid, created_at);
        """,
    ]

    /// The version this build writes.
    static var latest: Int32 { Int32(steps.count) }

    /// Brings `db` up to `latest`, each step in its own transaction. Refuses a newer schema.
    static func migrate(_ db: SQLiteDatabase) throws(StoreError) {
        let current = try db.userVersion
        guard current <= latest else { throw .schemaTooNew(found: current, supported: latest) }
        for version in Int(current)..<steps.count {
            try db.transaction { (db) throws(StoreError) in
                try db.executeScript(steps[version])
                try db.setUserVersion(Int32(version + 1))
            }
        }
    }
}
