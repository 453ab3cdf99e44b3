import Foundation

/// Degrees of latitude or longitude (CoreLocation's type, for Linux).
public typealias CLLocationDegrees = Double
/// Metres (CoreLocation's type, for Linux).
public typealias CLLocationDistance = Double
/// Metres of accuracy (CoreLocation's type, for Linux).
public typealias CLLocationAccuracy = Double

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

    public convenience init(latitude: CLLocationDegrees, longitude: CLLocationDegrees) {
        self.init(
            coordinate: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), altitude: 0, horizontalAccuracy: 0,
            verticalAccuracy: -1, timestamp: Date())
    }

    public init(
        coordinate: CLLocationCoordinate2D, altitude: CLLocationDistance, horizontalAccuracy: CLLocationAccuracy,
        verticalAccuracy: CLLocationAccuracy, timestamp: Date
    ) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
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
