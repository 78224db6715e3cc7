// Package localmap holds landmark maps as the map-fusion stage takes
// them: a Set of local maps (each a list of landmark positions in its own
// frame, from one stretch of a robot's run or one robot), optionally each
// map frame's pose in the odometry frame, and a landmark's true identity
// when it is known.
//
// Maps come from a documented CSV (ReadCSV: map,landmark,x,y[,z][,truth])
// with an optional poses CSV (ReadPoses: map,x,y,theta), or are built from
// a robot's log (FromLog): range–bearing detections and odometry, the run
// cut into time windows, each window dead-reckoned (Unicycle or Ackermann
// motion) into one map in the frame of its first pose, repeated sightings
// of a landmark within a window merged. Simulate makes such a log with
// its true association, for tests.
//
// Everything is pure Go. Readers check what they read: a bad file is a
// one-line error naming the file and line, and nothing is returned.
package localmap
