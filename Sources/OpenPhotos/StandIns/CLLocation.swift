import Foundation

/// Degrees of latitude or longitude (CoreLocation's type, for Linux).
public typealias CLLocationDegrees = Double
/// Metres (CoreLocation's type, for Linux).
public typealias CLLocationDistance = Double
/// Metres of accuracy (CoreLocation's type, for Linux).
public typealias CLLocationAccuracy = Double
/// Degrees clockwise from true north; negative when unknown (CoreLocation's type, for Linux).
public typealias CLLocationDirection = Double
/// Degrees of accuracy of a direction (CoreLocation's type, for Linux).
public typealias CLLocationDirectionAccuracy = Double
/// Metres per second; negative when unknown (CoreLocation's type, for Linux).
public typealias CLLocationSpeed = Double
/// Metres per second of accuracy of a speed (CoreLocation's type, for Linux).
public typealias CLLocationSpeedAccuracy = Double

/// A latitude and longitude — the shape of CoreLocation's `CLLocationCoordinate2D`, for Linux.
public struct CLLocationCoordinate2D: Sendable, Hashable, Codable {
    public var latitude: CLLocationDegrees
    public var longitude: CLLocationDegrees

    public init() {
        self.init(latitude: 0, longitude: 0)
    }

    public init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// Whether a coordinate is a valid position on Earth (CoreLocation's function).
public func CLLocationCoordinate2DIsValid(_ coordinate: CLLocationCoordinate2D) -> Bool {
    (-90...90).contains(coordinate.latitude) && (-180...180).contains(coordinate.longitude)
}

/// A geographic position — the shape of CoreLocation's `CLLocation`, so ported code that reads or sets
/// `PHAsset.location` compiles on Linux.
open class CLLocation: NSObject, NSCopying, @unchecked Sendable {
    public let coordinate: CLLocationCoordinate2D
    public let altitude: CLLocationDistance
    public let horizontalAccuracy: CLLocationAccuracy
    public let verticalAccuracy: CLLocationAccuracy
    public let timestamp: Date
    /// The direction of travel, degrees clockwise from true north; -1 when unknown.
    public let course: CLLocationDirection
    /// The accuracy of ``course`` in degrees; -1 when unknown.
    public let courseAccuracy: CLLocationDirectionAccuracy
    /// The speed in metres per second; -1 when unknown.
    public let speed: CLLocationSpeed
    /// The accuracy of ``speed`` in metres per second; -1 when unknown.
    public let speedAccuracy: CLLocationSpeedAccuracy

    public convenience init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.init(
            coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), altitude: 0, horizontalAccuracy: 0,
            verticalAccuracy: -1, timestamp: Date())
    }

    public convenience init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy: CLLocationAccuracy,
        verticalAccuracy: CLLocationAccuracy, timestamp: Date
    ) {
        self.init(
            coordinate: coordinate, altitude: altitude, horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy,
            course: -1, courseAccuracy: -1, speed: -1, speedAccuracy: -1, timestamp: timestamp)
    }

    public convenience init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy: CLLocationAccuracy,
        verticalAccuracy: CLLocationAccuracy, course: CLLocationDirection, speed: CLLocationSpeed, timestamp: Date
    ) {
        self.init(
            coordinate: coordinate, altitude: altitude, horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy,
            course: course, courseAccuracy: -1, speed: speed, speedAccuracy: -1, timestamp: timestamp)
    }

    public init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy: CLLocationAccuracy,
        verticalAccuracy: CLLocationAccuracy, course: CLLocationDirection, courseAccuracy: CLLocationDirectionAccuracy,
        speed: CLLocationSpeed, speedAccuracy: CLLocationSpeedAccuracy, timestamp: Date
    ) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.courseAccuracy = courseAccuracy
        self.speed = speed
        self.speedAccuracy = speedAccuracy
        self.timestamp = timestamp
    }

    /// Great-circle distance in metres (haversine, mean Earth radius).
    public func distance(from location: CLLocation) -> CLLocationDistance {
        let r = 6_371_008.8
        let φ1 = coordinate.latitude * .pi / 180
        let φ2 = location.coordinate.latitude * .pi / 180
        let dφ = φ2 - φ1
        let dλ = (location.coordinate.longitude - coordinate.longitude) * .pi / 180
        let a = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * r * atan2(a.squareRoot(), (1 - a).squareRoot())
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CLLocation else { return false }
        return coordinate == other.coordinate && altitude == other.altitude
    }

    open override var hash: Int { coordinate.hashValue }

    open override var description: String {
        "<\(coordinate.latitude),\(coordinate.longitude)> +/- \(horizontalAccuracy)m, altitude \(altitude)m"
    }
}
