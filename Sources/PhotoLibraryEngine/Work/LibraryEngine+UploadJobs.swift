import Foundation

/// Where an upload job sends its resource: the request, kept as the client built it.
package struct UploadJobDestination: Sendable, Equatable, Codable {
    package var url: String
    package var method: String
    /// Header fields in the order they were set.
    package var headers: [[String]]
    package var timeout: Double

    package init(url: String, method: String, headers: [[String]], timeout: Double) {
        (self.url, self.method, self.headers, self.timeout) = (url, method, headers, timeout)
    }
}

/// `PHAssetResourceUploadJob.State`'s raw values (Apple's header).
package enum UploadJobState: Int, Sendable {
    case registered = 1
    case pending = 2
    case failed = 3
    case succeeded = 4
    case cancelled = 5
}

/// `PHAssetResourceUploadJob.Action`'s raw values (Apple's header).
package enum UploadJobAction: Int, Sendable {
    case acknowledge = 1
    case retry = 2
    case process = 3
}

/// One upload job as the library keeps it.
package struct UploadJobRecord: Sendable, Equatable {
    package var localIdentifier: String
    package var client: String?
    /// 0: upload; 1: download only (`PHAssetResourceUploadJob.Type`).
    package var jobType: Int
    package var assetLocalIdentifier: String
    package var resourceType: Int
    /// The digest of the resource's bytes when the job was made (the bytes it sends).
    package var resourceSHA256: String
    package var destination: UploadJobDestination
    package var state: UploadJobState
    package var acknowledged: Bool
    package var retried: Bool
    package var attempts: Int
    package var error: String?
    package var responseStatus: Int?
    package var responseHeaders: [String: String]?
    package var createdDate: Date
    /// The resource the job sends, as a served library answered it with the job (nil for a local library's job:
    /// ``LibraryEngine/uploadJobResource(_:)`` finds it).
    package var servedResource: ResourceRecord? = nil
}

/// A change a block makes to an upload job.
package enum UploadJobChange: Sendable, Equatable {
    case create(assetLocalIdentifier: String, resourceType: Int, destination: UploadJobDestination?, jobType: Int)
    case acknowledge
    case retry(UploadJobDestination?)
    case cancel
}

/// What became of one attempt at a job's request.
package enum UploadJobAttempt: Sendable, Equatable {
    /// A 2xx answer.
    case succeeded(status: Int, headers: [String: String])
    /// A final failure: an answer that retrying cannot change (4xx but 408 and 429), or the last attempt.
    case failed(error: String, status: Int?, headers: [String: String]?)
    /// Try again after `delay` seconds: the network, a 5xx, 408 or 429.
    case retryLater(error: String, delay: TimeInterval)
}

/// Background upload jobs (`PHAssetResourceUploadJob`): a client — an app's upload extension — makes jobs in change
/// blocks (at most ``uploadJobLimit`` unacknowledged), and a performer (``claimUploadJobs(client:worker:limit:lease:now:)``)
/// sends each job's request with the resource's bytes: registered → pending (claimed, with a lease) → succeeded or
/// failed, retried with backoff meanwhile; the client acknowledges finished jobs, retries a failed one once, cancels
/// waiting ones. A performer that dies leaves its jobs pending until their lease ends; the next one sends them again
/// (a destination takes the same resource twice as once: `photos serve` does).
extension LibraryEngine {
    /// How many unacknowledged jobs a client may have (`PHAssetResourceUploadJob.jobLimit`).
    package static let uploadJobLimit = 1000
    /// How many times a performer sends a job's request before the job fails.
    package static let uploadJobMaximumAttempts = 8

    private static func uploadJobsKey(_ client: String?) -> String { "upload_jobs:\(client ?? "")" }

    /// The client's background upload options (JSON), nil when it has not enabled background uploads.
    package func uploadJobConfiguration(client: String?) throws(LibraryError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM library_info WHERE key = ?", arguments: [Self.uploadJobsKey(client)]) }
    }

    /// Enables background uploads for a client with `options` (JSON), or disables them (nil): its jobs waiting are
    /// cancelled then, and the finished ones acknowledged.
    package func setUploadJobConfiguration(_ options: String?, client: String?) throws(LibraryError) {
        try writeQueue("configure background uploads") { db in
            let key = Self.uploadJobsKey(client)
            if let options {
                try db.execute(
                    sql: "INSERT INTO library_info (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    arguments: [key, options])
            } else {
                try db.execute(sql: "DELETE FROM library_info WHERE key = ?", arguments: [key])
                try db.execute(
                    sql: "UPDATE upload_job SET state = ?, acknowledged = 1, claimed_by = NULL WHERE client_id = ? AND state IN (?, ?)",
                    arguments: [UploadJobState.cancelled.rawValue, client ?? "", UploadJobState.registered.rawValue, UploadJobState.pending.rawValue])
                try db.execute(sql: "UPDATE upload_job SET acknowledged = 1 WHERE client_id = ?", arguments: [client ?? ""])
            }
        }
    }

    /// Applies a block's job changes in its transaction: new jobs name a resource the client can see, within the
    /// client's limit; the others follow Apple's rules for each action.
    func applyUploadJobChange(_ identifier: String, _ change: UploadJobChange, access: AccessContext, now: Date, db: any SQLConnection) throws {
        let client = access.clientID ?? ""
        switch change {
        case .create(let assetIdentifier, let resourceType, let destination, let jobType):
            guard
                try String.fetchOne(
                    db, sql: "SELECT value FROM library_info WHERE key = ?", arguments: [Self.uploadJobsKey(access.clientID)], cached: true) != nil
            else {
                throw LibraryError.accessRestricted(
                    "background uploads are not enabled for this client: call enableUploadJobExtension(with:) first")
            }
            let assetID = try visibleAssetID(assetIdentifier, access: access, db: db)
            guard
                let sha256 = try String.fetchOne(
                    db, sql: "SELECT sha256 FROM resource WHERE asset_id = ? AND type = ? ORDER BY id DESC LIMIT 1",
                    arguments: [assetID, Int64(resourceType)], cached: true)
            else { throw LibraryError.missingResource("\(assetIdentifier) has no resource of type \(resourceType)") }
            let open =
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM upload_job WHERE client_id = ? AND acknowledged = 0", arguments: [client], cached: true) ?? 0
            guard open < Self.uploadJobLimit else {
                throw LibraryError(
                    code: 3307,
                    "this client has \(open) unacknowledged upload jobs, the limit (jobLimit): acknowledge finished jobs first")
            }
            let json = try Self.encode(destination ?? UploadJobDestination(url: "", method: "GET", headers: [], timeout: 60))
            try db.execute(
                sql: """
                    INSERT INTO upload_job (local_id, client_id, job_type, asset_local_id, resource_type, resource_sha256, destination,
                        state, next_attempt, created_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    identifier, client, Int64(jobType), assetIdentifier, Int64(resourceType), sha256, json,
                    UploadJobState.registered.rawValue, now.timeIntervalSince1970, now.timeIntervalSince1970,
                ], cached: true)
        case .acknowledge, .retry, .cancel:
            guard
                let row = try SQLRecord.fetchOne(
                    db, sql: "SELECT state, acknowledged, retried FROM upload_job WHERE local_id = ? AND client_id = ?",
                    arguments: [identifier, client], cached: true)
            else { throw LibraryError.identifierNotFound("no upload job \(identifier)") }
            let state = UploadJobState(rawValue: Int(row[0] as Int64))
            let acknowledged = (row[1] as Int64) != 0
            let retried = (row[2] as Int64) != 0
            switch change {
            case .acknowledge:
                guard state == .succeeded || state == .failed, !acknowledged else {
                    throw LibraryError.changeNotSupported("only a succeeded or failed job that is not acknowledged can be acknowledged")
                }
                try db.execute(sql: "UPDATE upload_job SET acknowledged = 1 WHERE local_id = ?", arguments: [identifier], cached: true)
            case .retry(let destination):
                guard state == .failed, !acknowledged, !retried else {
                    throw LibraryError.changeNotSupported("only a failed job, not acknowledged and not retried before, can be retried")
                }
                var sets = "state = ?, retried = 1, attempts = 0, error = NULL, response_status = NULL, response_headers = NULL, "
                sets += "next_attempt = ?, claimed_by = NULL, lease_until = NULL"
                var arguments: SQLArguments = [UploadJobState.registered.rawValue, now.timeIntervalSince1970]
                if let destination {
                    sets += ", destination = ?"
                    arguments = arguments + [try Self.encode(destination)]
                }
                try db.execute(sql: "UPDATE upload_job SET \(sets) WHERE local_id = ?", arguments: arguments + [identifier])
            case .cancel:
                guard state == .registered || state == .pending else {
                    throw LibraryError.changeNotSupported("only a registered or pending job can be cancelled")
                }
                try db.execute(
                    sql: "UPDATE upload_job SET state = ?, acknowledged = 1, claimed_by = NULL, lease_until = NULL WHERE local_id = ?",
                    arguments: [UploadJobState.cancelled.rawValue, identifier])
            case .create: break
            }
        }
    }

    private static func encode(_ destination: UploadJobDestination) throws -> String {
        String(decoding: try JSONEncoder().encode(destination), as: UTF8.self)
    }

    private static let jobColumns = """
        local_id, client_id, job_type, asset_local_id, resource_type, resource_sha256, destination, state, acknowledged,
        retried, attempts, error, response_status, response_headers, created_date
        """

    private static func job(_ row: SQLRecord) -> UploadJobRecord? {
        let destinationJSON: String = row[6]
        guard let destination = try? JSONDecoder().decode(UploadJobDestination.self, from: Data(destinationJSON.utf8)),
            let state = UploadJobState(rawValue: Int(row[7] as Int64))
        else { return nil }
        let headersJSON: String? = row[13]
        let client: String = row[1]
        let status: Int64? = row[12]
        return UploadJobRecord(
            localIdentifier: row[0], client: client.isEmpty ? nil : client, jobType: Int(row[2] as Int64), assetLocalIdentifier: row[3],
            resourceType: Int(row[4] as Int64), resourceSHA256: row[5], destination: destination, state: state,
            acknowledged: (row[8] as Int64) != 0, retried: (row[9] as Int64) != 0, attempts: Int(row[10] as Int64), error: row[11],
            responseStatus: status.map(Int.init),
            responseHeaders: headersJSON.flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) },
            createdDate: Date(timeIntervalSince1970: row[14]))
    }

    /// The client's jobs an action applies to (`fetchJobs(action:options:)`), oldest first; all of them for nil.
    package func uploadJobs(client: String?, action: UploadJobAction?) throws(LibraryError) -> [UploadJobRecord] {
        let condition: String
        switch action {
        case .process: condition = "state IN (1, 2)"
        case .acknowledge: condition = "state IN (3, 4) AND acknowledged = 0"
        case .retry: condition = "state = 3 AND acknowledged = 0 AND retried = 0"
        case nil: condition = "1 = 1"
        }
        return try read { db in
            try SQLRecord.fetchAll(
                db, sql: "SELECT \(Self.jobColumns) FROM upload_job WHERE client_id = ? AND \(condition) ORDER BY id",
                arguments: [client ?? ""])
        }.compactMap(Self.job)
    }

    /// Claims up to `limit` jobs due now for `worker` — registered ones, and pending ones whose performer's lease
    /// ended (it died) — marking them pending with a lease of `lease` seconds.
    package func claimUploadJobs(client: String?, worker: String, limit: Int, lease: TimeInterval, now: Date = Date()) throws(LibraryError)
        -> [UploadJobRecord]
    {
        let moment = now.timeIntervalSince1970
        return try writeQueue("claim upload jobs") { db -> [UploadJobRecord] in
            // Every original is local: a download-only job has nothing to do.
            try db.execute(
                sql:
                    "UPDATE upload_job SET state = 4, claimed_by = NULL, lease_until = NULL WHERE client_id = ? AND job_type = 1 AND state IN (1, 2)",
                arguments: [client ?? ""], cached: true)
            let due = try String.fetchAll(
                db,
                sql: """
                    SELECT local_id FROM upload_job WHERE client_id = ? AND job_type = 0 AND next_attempt <= ?
                    AND (state = 1 OR (state = 2 AND (lease_until IS NULL OR lease_until < ?))) ORDER BY id LIMIT ?
                    """,
                arguments: [client ?? "", moment, moment, Int64(limit)], cached: true)
            guard !due.isEmpty else { return [] }
            let list = db.dialect.isIn("local_id", due.map { .text($0) })
            try db.execute(
                sql: "UPDATE upload_job SET state = 2, claimed_by = ?, lease_until = ? WHERE \(list.sql)",
                arguments: [worker, moment + lease] + list.statementArguments)
            return try SQLRecord.fetchAll(
                db, sql: "SELECT \(Self.jobColumns) FROM upload_job WHERE \(list.sql) ORDER BY id", arguments: list.statementArguments
            ).compactMap(Self.job)
        }
    }

    /// The next moment a job of the client is due: a registered job's next attempt, or the end of a pending job's
    /// lease (its performer may be gone); nil when no job waits.
    package func nextUploadJobDue(client: String?) throws(LibraryError) -> Date? {
        let next = try read { db in
            try Double.fetchOne(
                db,
                sql: """
                    SELECT min(CASE WHEN state = 1 THEN next_attempt ELSE coalesce(lease_until, next_attempt) END) FROM upload_job
                    WHERE client_id = ? AND job_type = 0 AND state IN (1, 2)
                    """,
                arguments: [client ?? ""])
        }
        return next.map(Date.init(timeIntervalSince1970:))
    }

    /// Extends `worker`'s claims on jobs it is still sending to `lease` seconds from now.
    package func renewUploadJobLeases(_ identifiers: [String], worker: String, lease: TimeInterval, now: Date = Date()) throws(LibraryError) {
        guard !identifiers.isEmpty else { return }
        try writeQueue("renew upload job leases") { db in
            let list = db.dialect.isIn("local_id", identifiers.map { .text($0) })
            try db.execute(
                sql: "UPDATE upload_job SET lease_until = ? WHERE claimed_by = ? AND state = 2 AND \(list.sql)",
                arguments: [now.timeIntervalSince1970 + lease, worker] + list.statementArguments)
        }
    }

    /// Records what an attempt at a job claimed by `worker` came to (nothing when the job is no longer its claim:
    /// cancelled meanwhile, or its lease ended and another performer took it).
    @discardableResult
    package func finishUploadJob(_ identifier: String, worker: String, _ attempt: UploadJobAttempt, now: Date = Date()) throws(LibraryError)
        -> Bool
    {
        try finishUploadJobs([(identifier, attempt)], worker: worker, now: now)[0]
    }

    /// Records the outcomes of several attempts in one transaction; for each, whether it was still `worker`'s.
    @discardableResult
    package func finishUploadJobs(_ outcomes: [(identifier: String, attempt: UploadJobAttempt)], worker: String, now: Date = Date())
        throws(LibraryError) -> [Bool]
    {
        guard !outcomes.isEmpty else { return [] }
        return try writeQueue("record upload jobs' outcomes") { db -> [Bool] in
            try outcomes.map { identifier, attempt in try Self.finish(identifier, worker: worker, attempt, now: now, db: db) }
        }
    }

    private static func finish(_ identifier: String, worker: String, _ attempt: UploadJobAttempt, now: Date, db: any SQLConnection) throws -> Bool {
        let condition = "local_id = ? AND claimed_by = ? AND state = 2"
        switch attempt {
        case .succeeded(let status, let headers):
            return try db.execute(
                sql: """
                    UPDATE upload_job SET state = 4, attempts = attempts + 1, error = NULL, response_status = ?,
                    response_headers = ?, claimed_by = NULL, lease_until = NULL WHERE \(condition)
                    """,
                arguments: [Int64(status), try headersJSON(headers), identifier, worker], cached: true) > 0
        case .failed(let error, let status, let headers):
            return try db.execute(
                sql: """
                    UPDATE upload_job SET state = 3, attempts = attempts + 1, error = ?, response_status = ?,
                    response_headers = ?, claimed_by = NULL, lease_until = NULL WHERE \(condition)
                    """,
                arguments: [error, status.map { Int64($0) }, try headers.map(Self.headersJSON), identifier, worker]) > 0
        case .retryLater(let error, let delay):
            let attempts =
                try Int.fetchOne(db, sql: "SELECT attempts FROM upload_job WHERE \(condition)", arguments: [identifier, worker]) ?? -1
            guard attempts >= 0 else { return false }
            if attempts + 1 >= uploadJobMaximumAttempts {
                return try db.execute(
                    sql:
                        "UPDATE upload_job SET state = 3, attempts = attempts + 1, error = ?, claimed_by = NULL, lease_until = NULL WHERE \(condition)",
                    arguments: [error, identifier, worker]) > 0
            }
            return try db.execute(
                sql: """
                    UPDATE upload_job SET state = 1, attempts = attempts + 1, error = ?, next_attempt = ?, claimed_by = NULL,
                    lease_until = NULL WHERE \(condition)
                    """,
                arguments: [error, now.timeIntervalSince1970 + delay, identifier, worker]) > 0
        }
    }

    private static func headersJSON(_ headers: [String: String]) throws -> String {
        String(decoding: try JSONEncoder().encode(headers), as: UTF8.self)
    }

    /// The resource a job sends, as the asset has it now when its bytes are still those the job was made for.
    /// ``uploadJobResource(_:)`` of each job, in two reads whatever their number.
    package func uploadJobResources(_ jobs: [UploadJobRecord]) throws(LibraryError) -> [ResourceRecord?] {
        let names = Array(Set(jobs.map(\.assetLocalIdentifier)))
        guard !names.isEmpty else { return [] }
        let ids = try read { db in
            let list = db.dialect.isIn("local_id", names.map { .text($0) })
            return try SQLRecord.fetchAll(db, sql: "SELECT id, local_id FROM asset WHERE \(list.sql)", arguments: list.statementArguments)
                .map { (row: SQLRecord) -> (String, Int64) in (row[1], row[0]) }
        }
        let assetIDs = Dictionary(ids, uniquingKeysWith: { first, _ in first })
        let files = try resources(assetIDs: Array(assetIDs.values))
        return jobs.map { job in
            guard let id = assetIDs[job.assetLocalIdentifier] else { return nil }
            return files[id]?.last { $0.typeRawValue == job.resourceType && $0.sha256 == job.resourceSHA256 }
        }
    }

    package func uploadJobResource(_ job: UploadJobRecord) throws(LibraryError) -> ResourceRecord? {
        let assetID = try read { db in try Int64.fetchOne(db, sql: "SELECT id FROM asset WHERE local_id = ?", arguments: [job.assetLocalIdentifier]) }
        guard let assetID else { return nil }
        return try resources(assetID: assetID).last { $0.typeRawValue == job.resourceType && $0.sha256 == job.resourceSHA256 }
    }
}
