// The code of docs/tutorial.md, in one program.
//
// Built with the tests (target ictus_tutorial) and run by CTest as
// docs.tutorial, from the repository root (it loads examples/*.yaml).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ictus/constraints/point_on_plane.h"
#include "ictus/forces/joint_spring_damper.h"
#include "ictus/forces/point_load.h"
#include "ictus/forces/spring_damper.h"
#include "ictus/model.h"
#include "ictus/model_file.h"
#include "ictus/observers.h"
#include "ictus/simulation.h"

using namespace ictus;

// --- 1. The pendulum of examples/pendulum.yaml, in C++ ---------------------------
Model make_pendulum() {
  const double L = 1.0;                      // rod length [m]
  const double theta0 = 30.0 * kPi / 180.0;  // release angle [rad]

  Model model;
  model.set_name("pendulum (C++)");
  model.set_gravity(Vec3(0.0, 0.0, -9.81));  // adds the force element "gravity"

  Body bob;
  bob.name = "bob";
  bob.mass = 1.0;                                     // [kg]
  bob.inertia = Vec3(1e-4, 1e-4, 1e-4).asDiagonal();  // about the centre of mass [kg m^2]
  bob.position = Vec3(L * std::sin(theta0), 0.0, -L * std::cos(theta0));  // p_WB at t0 [m]
  model.add_body(bob);

  // geometry in world coordinates at the initial configuration
  JointPlacement pivot;
  pivot.origin_W = Vec3::Zero();
  pivot.axes_W =
      frame_from_z(/*z = axis*/ Vec3(0.0, -1.0, 0.0), /*x = reference*/ Vec3(0.0, 0.0, -1.0));
  pivot.initial_angle = theta0;  // the value of pivot.angle in this configuration
  model.add_joint("pivot", "revolute", "ground", "bob", pivot);

  // a log-only event: no actions, but every upward crossing is in the event log
  Event upswing;
  upswing.name = "upswing";
  upswing.condition = Condition{Expression("pivot.omega > 0")};
  model.add_event(upswing);

  SimulationSettings& s = model.settings();
  s.until = 5.0;
  s.output_step = 0.01;
  s.integrator.name = "dopri5";
  s.integrator.rtol = 1e-10;
  s.integrator.atol = 1e-12;
  return model;
}

// --- 2. A slider-crank with a driver, loads, springs and events ----------------
Model make_slider_crank() {
  const double r = 0.1, l = 0.35, th0 = 30.0 * kPi / 180.0;
  const Vec3 B(r * std::cos(th0), r * std::sin(th0), 0.0);           // crank pin
  const Vec3 C(B.x() + std::sqrt(l * l - B.y() * B.y()), 0.0, 0.0);  // wrist pin

  Model model;
  model.set_name("slider-crank (C++)");
  model.set_parameter("w", 2.0 * kPi);  // parameters can be used in every formula
  model.set_parameter("th0", th0);
  model.set_parameter("P", 100.0);
  model.set_gravity(Vec3(0.0, -9.81, 0.0));

  auto body = [&](const char* name, double mass, Vec3 inertia, Vec3 position) {
    Body b;
    b.name = name;
    b.mass = mass;
    b.inertia = inertia.asDiagonal();
    b.position = position;
    return model.add_body(b);
  };
  body("crank", 2.0, Vec3(2e-3, 2e-3, 4e-3), B / 2.0);
  body("rod", 1.0, Vec3(1e-3, 1e-2, 1e-2), (B + C) / 2.0);
  const BodyIndex piston = body("piston", 0.5, Vec3(1e-3, 1e-3, 1e-3), C);

  auto place = [](Vec3 at, Vec3 axis, double angle = 0.0, double position = 0.0) {
    JointPlacement p;
    p.origin_W = at;
    p.axes_W = frame_from_z(axis);  // x: any perpendicular when no reference is given
    p.initial_angle = angle;        // offsets of the joint coordinates
    p.initial_position = position;
    return p;
  };
  const Vec3 z = Vec3::UnitZ();
  model.add_joint("main_bearing", "revolute", "ground", "crank",
                  place(Vec3::Zero(), z, /*initial_angle*/ th0));
  model.add_joint("crank_pin", "revolute", "crank", "rod", place(B, z));
  model.add_joint("wrist_pin", "revolute", "rod", "piston", place(C, z));
  model.add_joint("cylinder", "prismatic", "ground", "piston",
                  place(C, Vec3::UnitX(), 0.0, /*initial_position*/ C.x()));

  // the crank angle prescribed as a function of t (formula of t and parameters)
  Driver motor;
  motor.name = "motor";
  motor.joint = "main_bearing";
  motor.coordinate = Driver::Coordinate::kAngle;
  motor.motion.value = Expression("th0 + w*t");  // the joint angle, offset included [rad]
  motor.motion.rate_text = "w";                  // optional exact derivatives
  motor.motion.acceleration_text = "0";
  model.add_driver(motor);

  // a gas load on the piston: direction (world) times a formula [N]
  model.add_force(std::make_unique<PointLoad>("gas_load", PointLoad::Kind::kForce, piston,
                                              /*point_B*/ Vec3::Zero(), Vec3(-1.0, 0.0, 0.0),
                                              Expression("P"), PointLoad::Axes::kWorld));
  // a return spring from a ground point to the piston centre (points in body coordinates)
  SpringDamper::Parameters spring;
  spring.stiffness = 500.0;  // [N/m]
  spring.damping = 2.0;      // [N s/m]
  spring.free_length = 0.2;  // [m]
  model.add_force(std::make_unique<SpringDamper>("return_spring", kGround, Vec3(0.65, 0.0, 0.0),
                                                 piston, Vec3::Zero(), spring));
  // viscous friction in the crank pin, on the joint angle [N m s/rad]
  JointSpringDamper::Parameters friction;
  friction.damping = 0.01;
  model.add_force(std::make_unique<JointSpringDamper>(
      "pin_friction", "crank_pin", JointSpringDamper::Coordinate::kAngle, friction));

  // events: the gas load acts only on the outward stroke (a two-way switch,
  // what `active_when: cylinder.v > 0` generates in a model file) ...
  Event stroke;
  stroke.name = "outward_stroke";
  stroke.condition = Condition{Expression("cylinder.v > 0")};
  stroke.on_true = {Action{Action::Kind::kEnable, "gas_load"}};
  stroke.on_false = {Action{Action::Kind::kDisable, "gas_load"}};
  model.add_event(stroke);
  // ... and the run stops if the motor torque exceeds 40 N m (a reaction in a condition)
  Event overload;
  overload.name = "overload";
  overload.condition = Condition{Expression("motor.load > 40 || motor.load < -40")};
  overload.on_true = {Action{Action::Kind::kStop}};
  overload.once = true;
  model.add_event(overload);

  model.settings().until = 2.0;
  model.settings().output_step = 0.01;
  model.settings().integrator.rtol = 1e-9;
  model.settings().integrator.atol = 1e-11;
  return model;
}

// --- 3. Seed 000's three bodies: a contact that closes with restitution k --------
// Bodies 1 and 2 are rigidly joined and at rest; body 3 hits body 2 at v = 1 m/s.
Model make_three_bodies(double k) {
  Model model;
  model.set_name("seed 000: three bodies (C++)");
  auto body = [&](const char* name, double x, double vx) {
    Body b;
    b.name = name;
    b.mass = 1.0;
    b.inertia = Vec3(1e-3, 1e-3, 1e-3).asDiagonal();
    b.position = Vec3(x, 0.0, 0.0);
    b.velocity = Vec3(vx, 0.0, 0.0);
    return model.add_body(b);
  };
  const BodyIndex b3 = body("body3", 0.0, 1.0);
  const BodyIndex b2 = body("body2", 0.5, 0.0);
  body("body1", 0.7, 0.0);
  JointPlacement link;
  link.origin_W = Vec3(0.6, 0.0, 0.0);
  model.add_joint("link", "fixed", "body2", "body1", link);  // permanent: row v1 - v2

  // the contact: one point-on-plane row v2 - v3, built by hand (body coordinates)
  Joint contact;
  contact.name = "contact";
  contact.type = "custom";
  contact.base = b3;
  contact.follower = b2;
  JointMember face;
  face.constraint = std::make_shared<PointOnPlane>(/*plane point, in body3*/ Vec3(0.1, 0.0, 0.0),
                                                   /*normal, in body3*/ Vec3::UnitX(),
                                                   /*point, in body2*/ Vec3(-0.1, 0.0, 0.0));
  face.label = "face";
  face.restitution = k;  // Newton's law for this row when it closes
  contact.members.push_back(face);
  place_joint(contact, JointPlacement{}, model.initial_position(b3), model.initial_orientation(b3),
              model.initial_position(b2), model.initial_orientation(b2));
  model.add_joint(std::move(contact));

  // off at the start, switched on when the faces meet: what `after:` generates
  model.set_initially_enabled("contact", false);
  Event touch;
  touch.name = "touch";
  touch.condition = Condition{Expression("body2.x - body3.x <= 0.2")};
  touch.on_true = {Action{Action::Kind::kEnable, "contact"}};
  touch.once = true;
  model.add_event(touch);

  model.settings().until = 1.0;
  model.settings().output_step = 0.1;
  model.settings().integrator.rtol = 1e-12;
  model.settings().integrator.atol = 1e-14;
  return model;
}

int main(int argc, char** argv) {
  const std::filesystem::path examples = argc > 1 ? argv[1] : "examples";
  const std::filesystem::path out = std::filesystem::temp_directory_path() / "ictus_tutorial";
  try {
    // --- pendulum: run with a Recorder ------------------------------------------
    const Model pendulum = make_pendulum();
    Simulation simulation(pendulum);
    Recorder recorder({"pivot.angle", "pivot.Fz", "energy.balance"});
    simulation.add_observer(recorder);
    const RunStatistics stats = simulation.run();
    std::printf("pendulum: %ld steps, %ld evaluations, %zu samples\n", stats.integrator.steps,
                stats.integrator.evaluations, recorder.size());
    std::printf("  angle at t = 0: %.6f rad, pivot.Fz at t = 0: %.6f N\n",
                recorder.series("pivot.angle").front(), recorder.series("pivot.Fz").front());
    double previous = -1.0;
    for (const EventRecord& e : simulation.events())
      if (e.kind == "event" && e.name == "upswing") {
        if (previous >= 0.0) std::printf("  period %.9f s\n", e.t - previous);
        previous = e.t;
      }

    // reading one channel at a state: evaluate, then read by index
    System& system = simulation.system();
    system.evaluate(simulation.time(), simulation.state(), Stage::kDynamics);
    const int fz = system.find_channel("pivot.Fz");
    std::printf("  final %s = %.6f %s\n", system.channel_info(fz).name.c_str(),
                system.channel_value(fz), system.channel_info(fz).unit.c_str());

    // --- slider-crank: default channels to CSV, a summary table ---------------------
    const Model crank = make_slider_crank();
    Simulation run(crank);
    const std::vector<std::string> channels = select_channels(run.system(), {});  // defaults
    CsvWriter csv(out, channels);
    EventLogWriter log(out);
    Summary summary(
        {"cylinder.x", "motor.load", "gas_load.Fx", "return_spring.force", "energy.balance"});
    run.add_observer(csv);
    run.add_observer(log);
    run.add_observer(summary);
    run.run();
    std::printf("\nslider-crank: %s\n%s", csv.final_path().c_str(), summary.table().c_str());
    std::printf("energy balance error %.3g J (%.3g relative)\n", summary.energy_balance_error(),
                summary.relative_energy_balance_error());

    // --- the structure: rank, redundancy, conditioning --------------------------------
    System& s = run.system();
    VecX y = s.initial_state();
    s.assemble(crank.settings().start, y);
    const StructureReport rep = s.structure_report(crank.settings().start, y);
    std::printf("rows %d, independent %d, dof %d (Gruebler %d), condition %.3g\n", rep.rows,
                rep.independent_rows, rep.dof, rep.gruebler_dof, rep.condition_estimate);
    for (std::size_t k = 0; k < rep.redundant_rows.size(); ++k)
      std::printf("  redundant: %s (depends on %zu rows)\n", rep.redundant_rows[k].c_str(),
                  rep.dependencies[k].size());
    for (const std::string& c : rep.non_unique_components)
      std::printf("  not unique: %s\n", c.c_str());

    // --- a system impact: the run, then the same impact by hand ------------------
    for (const double k : {0.0, 1.0}) {
      Simulation impact_run(make_three_bodies(k));
      Recorder v({"body1.vx", "body2.vx", "body3.vx", "contact.face.impulse", "energy.impacts"});
      impact_run.add_observer(v);
      impact_run.run();
      std::printf(
          "\nthree bodies, k = %g: final velocities (%.6f, %.6f, %.6f) m/s, "
          "energy.impacts %.6f J\n",
          k, v.series("body1.vx").back(), v.series("body2.vx").back(), v.series("body3.vx").back(),
          v.series("energy.impacts").back());
      for (const EventRecord& e : impact_run.events())
        if (e.kind == "impact" || (e.kind == "switch" && e.name == "contact"))
          std::printf("  %.6f %s %s\n", e.t, e.kind.c_str(), e.detail.c_str());
    }
    System bodies(make_three_bodies(0.0));
    VecX y3 = bodies.initial_state();
    bodies.assemble(0.0, y3);
    bodies.set_enabled("contact", true);  // close it now, with body 3 approaching
    const ExternalImpulse push{bodies.model().body_index("body1"), Vec3(-0.5, 0.0, 0.0)};
    const ImpulseResult hit = bodies.apply_impact(0.0, y3, {&push, 1});
    std::printf("apply_impact: T %.6f -> %.6f J;", hit.kinetic_before, hit.kinetic_after);
    for (std::size_t k = 0; k < hit.impulses.size(); ++k)
      std::printf(" %s = %.6f N s", hit.row_names[k].c_str(), hit.impulses[k]);
    bodies.evaluate(0.0, y3, Stage::kKinematics);
    auto value = [&](const char* name) { return bodies.channel_value(bodies.find_channel(name)); };
    std::printf("\n  velocities (%.6f, %.6f, %.6f) m/s\n", value("body1.vx"), value("body2.vx"),
                value("body3.vx"));

    // --- a model file with overrides (what `ictus run --set w=4*pi` does) --------------
    Model from_file = load_model((examples / "slider_crank.yaml").string(), {{"w", "4*pi"}});
    from_file.settings().until = 0.5;
    Simulation file_run(from_file);
    Recorder loads({"motor.load"});
    file_run.add_observer(loads);
    file_run.run();
    double peak = 0.0;
    for (double v : loads.series("motor.load")) peak = std::max(peak, std::abs(v));
    std::printf("\nslider_crank.yaml at w = 4 pi: peak |motor.load| = %.4f N m\n", peak);

    // --- step by step, save and restore (a controller, an optimiser) -----------------
    const auto compiled = CompiledModel::make(from_file);  // shared by every run below
    Simulation stepping(compiled);
    stepping.advance_to(0.2);                 // integrate to t = 0.2 s
    const auto checkpoint = stepping.save();  // time, state, switches and modes
    stepping.run();                           // finish in place...
    Simulation again(compiled);
    again.restore(*checkpoint);  // ...or continue a copy: the same bits
    again.run();
    std::printf("continued from t = 0.2 s: identical end state: %s\n",
                stepping.state() == again.state() ? "yes" : "no");
  } catch (const ModelError& e) {  // bad input: names the place and the element
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const SimulationError& e) {  // a run that failed midway: carries the time
    std::fprintf(stderr, "%s\n", e.what());
    return 3;
  }
  return 0;
}
