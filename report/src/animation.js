// The 3-D animation (three.js): bodies as their shapes, or as the uniform box
// of their mass and inertia; joints and markers; the ground as a grid. Poses
// between the written frames: positions linear, orientations by slerp.
import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import { doubles } from "./data.js";

const colors = [0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2, 0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f];
const yToZ = new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(0, 1, 0), new THREE.Vector3(0, 0, 1));

const quaternion = (q) => new THREE.Quaternion(q[1], q[2], q[3], q[0]);  // ictus: w x y z

function shapeMesh(s, material, planeSize) {
  let geometry;
  const orientation = new THREE.Quaternion();
  if (s.type === "sphere") geometry = new THREE.SphereGeometry(s.radius, 24, 16);
  else if (s.type === "box") geometry = new THREE.BoxGeometry(2 * s.half_extents[0], 2 * s.half_extents[1], 2 * s.half_extents[2]);
  else if (s.type === "capsule") {
    geometry = new THREE.CapsuleGeometry(s.radius, 2 * s.half_length, 8, 16);
    orientation.setFromUnitVectors(new THREE.Vector3(0, 1, 0), new THREE.Vector3(...s.axis));
  } else {  // plane: a square of the scene's size, normal along s.normal
    geometry = new THREE.PlaneGeometry(planeSize, planeSize);
    orientation.setFromUnitVectors(new THREE.Vector3(0, 0, 1), new THREE.Vector3(...s.normal));
    material = material.clone();
    material.transparent = true;
    material.opacity = 0.35;
    material.side = THREE.DoubleSide;
  }
  const mesh = new THREE.Mesh(geometry, material);
  mesh.position.set(...s.center);
  mesh.quaternion.copy(orientation);
  return mesh;
}

export class Animation {
  constructor(container, data) {
    this.data = data;
    this.bodies = data.bodies;
    const n = this.bodies.length;
    this.t = doubles(data.poses.t);
    this.values = doubles(data.poses.values);
    this.time = this.t[0];

    // the scale of the scene: body sizes and how far they move
    const box = new THREE.Box3();
    for (let i = 0; i < this.t.length; ++i)
      for (let b = 0; b < n; ++b) {
        const o = (i * n + b) * 7;
        box.expandByPoint(new THREE.Vector3(this.values[o], this.values[o + 1], this.values[o + 2]));
      }
    let size = 0;
    for (const b of this.bodies) if (b.box) size = Math.max(size, ...b.box.half);
    for (const { shape } of data.shapes) if (shape.type !== "plane") size = Math.max(size, shape.radius + shape.half_length, ...shape.half_extents);
    if (size === 0) size = Math.max(0.05, 0.05 * box.getSize(new THREE.Vector3()).length());
    this.size = size;
    const extent = box.getSize(new THREE.Vector3()).length();
    const planeSize = 4 * Math.max(size, extent / 2) + 2 * size;

    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(0xeef1f5);
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x667788, 2.0));
    const sun = new THREE.DirectionalLight(0xffffff, 1.5);
    sun.position.set(1, -2, 3);
    this.scene.add(sun);

    // the ground: a grid in the x-y plane (z up), the world axes
    const gridSize = Math.max(4 * size, 1.5 * extent + 4 * size);
    const step = Math.pow(10, Math.floor(Math.log10(gridSize / 10)));
    const divisions = Math.min(200, Math.ceil(gridSize / step));
    const grid = new THREE.GridHelper(divisions * step, divisions, 0x8899aa, 0xc5ccd6);
    grid.quaternion.copy(yToZ);
    const center = box.getCenter(new THREE.Vector3());
    grid.position.set(Math.round(center.x / step) * step, Math.round(center.y / step) * step, 0);
    this.scene.add(grid);
    this.scene.add(new THREE.AxesHelper(2 * size));

    // the bodies, their shapes, joints and markers
    this.groups = this.bodies.map((b, k) => {
      const group = new THREE.Group();
      group.name = b.name;
      this.scene.add(group);
      return group;
    });
    const parent = (body) => (body < 0 ? this.scene : this.groups[body]);
    const materials = this.bodies.map((b, k) => new THREE.MeshStandardMaterial({ color: colors[k % colors.length], roughness: 0.6, metalness: 0.1 }));
    const groundMaterial = new THREE.MeshStandardMaterial({ color: 0x999999, roughness: 0.8 });
    const hasShape = new Set(data.shapes.map((s) => s.body));
    for (const { body, shape } of data.shapes)
      parent(body).add(shapeMesh(shape, body < 0 ? groundMaterial : materials[body], planeSize));
    this.bodies.forEach((b, k) => {
      if (hasShape.has(k)) return;
      if (b.box) {  // the uniform box of the body's mass and inertia
        const geometry = new THREE.BoxGeometry(2 * b.box.half[0], 2 * b.box.half[1], 2 * b.box.half[2]);
        const material = materials[k].clone();
        material.transparent = true;
        material.opacity = 0.75;
        const mesh = new THREE.Mesh(geometry, material);
        mesh.quaternion.copy(quaternion(b.box.q));
        const edges = new THREE.LineSegments(new THREE.EdgesGeometry(geometry), new THREE.LineBasicMaterial({ color: 0x223344 }));
        mesh.add(edges);
        this.groups[k].add(mesh);
      } else {  // a point mass
        this.groups[k].add(new THREE.Mesh(new THREE.SphereGeometry(0.15 * size, 16, 12), materials[k]));
      }
    });
    const jointMaterial = new THREE.MeshStandardMaterial({ color: 0xcc5500 });
    for (const j of data.joints) {
      // drawn on the follower at its joint frame (on the base if the follower is the ground)
      const onFollower = j.follower >= 0;
      const frame = onFollower ? j.frame_follower : j.frame_base;
      const axis = new THREE.Mesh(new THREE.CylinderGeometry(0.04 * size, 0.04 * size, 0.6 * size, 12), jointMaterial);
      axis.position.set(...frame.origin);
      axis.quaternion.copy(quaternion(frame.q)).multiply(yToZ);
      axis.add(new THREE.Mesh(new THREE.SphereGeometry(0.08 * size, 12, 8), jointMaterial));
      axis.name = `joint ${j.name}`;
      parent(onFollower ? j.follower : j.base).add(axis);
    }
    const markerMaterial = new THREE.MeshStandardMaterial({ color: 0x111111 });
    for (const m of data.markers) {
      const dot = new THREE.Mesh(new THREE.SphereGeometry(0.05 * size, 10, 8), markerMaterial);
      dot.position.set(...m.point);
      dot.name = `marker ${m.name}`;
      parent(m.body).add(dot);
    }

    // the camera, under the mouse (orbit, zoom, pan); z up
    const width = container.clientWidth || 800, height = container.clientHeight || 480;
    this.camera = new THREE.PerspectiveCamera(45, width / height, size * 1e-3, 1e3 * (extent + 10 * size));
    this.camera.up.set(0, 0, 1);
    this.renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(window.devicePixelRatio);
    this.renderer.setSize(width, height);
    container.append(this.renderer.domElement);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    // the view follows the bodies' mass centre when they travel far beyond their size
    this.follow = extent > 6 * size;
    this.setTime(this.time);
    const look = this.follow ? this.massCentre() : center;
    const distance = 2.2 * (this.follow ? 4 * size + this.spread() : Math.max(extent / 2 + 2 * size, 4 * size));
    this.camera.position.copy(look).add(new THREE.Vector3(0.9, -1.6, 0.9).normalize().multiplyScalar(distance));
    this.controls.target.copy(look);
    this.controls.update();
    this.lastCentre = look.clone();
    window.addEventListener("resize", () => {
      const w = container.clientWidth, h = container.clientHeight;
      this.camera.aspect = w / h;
      this.camera.updateProjectionMatrix();
      this.renderer.setSize(w, h);
    });
  }

  massCentre() {
    const c = new THREE.Vector3();
    let m = 0;
    this.bodies.forEach((b, k) => { c.addScaledVector(this.groups[k].position, b.mass); m += b.mass; });
    return m > 0 ? c.divideScalar(m) : c;
  }

  spread() {
    const c = this.massCentre();
    let r = 0;
    for (const g of this.groups) r = Math.max(r, g.position.distanceTo(c));
    return r;
  }

  // t, or the time of the written frame within 1e-12 of the span of it
  snap(t) {
    const T = this.t, tolerance = 1e-12 * Math.max(T[T.length - 1] - T[0], Math.abs(T[0]), 1e-300);
    let lo = 0, hi = T.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (T[mid] <= t) lo = mid; else hi = mid;
    }
    for (const k of [lo, hi]) if (Math.abs(T[k] - t) <= tolerance) return T[k];
    return t;
  }

  // the poses at time t: the written frame, or between two frames
  setTime(t) {
    const T = this.t, n = this.bodies.length, v = this.values;
    t = Math.min(Math.max(t, T[0]), T[T.length - 1]);
    this.time = t;
    let lo = 0, hi = T.length - 1;  // the last frame with T <= t
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (T[mid] <= t) lo = mid; else hi = mid - 1;
    }
    const i = lo, j = Math.min(i + 1, T.length - 1);
    const a = T[i] === t || j === i ? 0 : (t - T[i]) / (T[j] - T[i]);
    const qa = new THREE.Quaternion(), qb = new THREE.Quaternion();
    for (let b = 0; b < n; ++b) {
      const o = (i * n + b) * 7, p = (j * n + b) * 7;
      const g = this.groups[b];
      g.position.set(v[o] + a * (v[p] - v[o]), v[o + 1] + a * (v[p + 1] - v[o + 1]), v[o + 2] + a * (v[p + 2] - v[o + 2]));
      qa.set(v[o + 4], v[o + 5], v[o + 6], v[o + 3]);
      qb.set(v[p + 4], v[p + 5], v[p + 6], v[p + 3]);
      g.quaternion.slerpQuaternions(qa, qb, a);
    }
  }

  render() {
    if (this.follow) {  // carry the camera with the mass centre
      const c = this.massCentre();
      const d = c.clone().sub(this.lastCentre);
      this.camera.position.add(d);
      this.controls.target.add(d);
      this.lastCentre = c;
    }
    this.controls.update();
    this.renderer.render(this.scene, this.camera);
  }

  poses() {
    return this.bodies.map((b, k) => {
      const g = this.groups[k];
      return { name: b.name, position: [g.position.x, g.position.y, g.position.z],
        quaternion: [g.quaternion.w, g.quaternion.x, g.quaternion.y, g.quaternion.z] };
    });
  }
}
