/** Small hand-written PDDL tasks for the planning tests. */

/** Typed logistics-like domain: a type hierarchy, a constant, negative preconditions and equality. */
export const DELIVERY_DOMAIN = `
; A van carries parcels between places; the depot is a constant.
(define (domain Delivery)
  (:requirements :strips :typing :negative-preconditions :equality)
  (:types van parcel - thing place - object thing - object)
  (:constants depot - place)
  (:predicates (at ?t - thing ?p - place) (in ?x - parcel ?v - van) (road ?from ?to - place) (broken ?v - van))
  (:action DRIVE
    :parameters (?v - van ?from ?to - place)
    :precondition (and (at ?v ?from) (road ?from ?to) (not (= ?from ?to)) (not (broken ?v)))
    :effect (and (at ?v ?to) (not (at ?v ?from))))
  (:action load
    :parameters (?x - parcel ?v - van ?p - place)
    :precondition (and (at ?x ?p) (at ?v ?p))
    :effect (and (in ?x ?v) (not (at ?x ?p))))
  (:action unload
    :parameters (?x - parcel ?v - van ?p - place)
    :precondition (and (in ?x ?v) (at ?v ?p))
    :effect (and (at ?x ?p) (not (in ?x ?v)))))
`;

export const DELIVERY_PROBLEM = `
(define (problem two-parcels)
  (:domain delivery)
  (:objects v1 - van a b c - place p1 p2 - parcel)
  (:init (at v1 depot) (at p1 a) (at p2 b)
         (road depot a) (road a depot) (road a b) (road b a) (road b c) (road c b))
  (:goal (and (at p1 c) (at p2 depot))))
`;

/** Two goals, one token: the delete relaxation reaches the goal, the real task cannot. */
export const TOKEN_DOMAIN = `
(define (domain token)
  (:requirements :strips)
  (:predicates (token) (p) (q))
  (:action make-p :parameters () :precondition (token) :effect (and (p) (not (token))))
  (:action make-q :parameters () :precondition (token) :effect (and (q) (not (token)))))
`;
export const TOKEN_PROBLEM = `(define (problem both) (:domain token) (:init (token)) (:goal (and (p) (q))))`;

/** Bits to switch on, where a bit can only move up when the next is off: 2^n states, for limit tests. */
export function counterTask(bits: number): { domain: string; problem: string } {
  const names = Array.from({ length: bits }, (_, i) => `b${i}`);
  return {
    domain: `(define (domain counter) (:requirements :strips :negative-preconditions)
  (:predicates (on ?b) (next ?low ?high) (first ?b))
  (:action set-first :parameters (?b) :precondition (and (first ?b) (not (on ?b))) :effect (on ?b))
  (:action carry :parameters (?low ?high) :precondition (and (next ?low ?high) (on ?low) (not (on ?high))) :effect (and (on ?high) (not (on ?low)))))`,
    problem: `(define (problem count) (:domain counter) (:objects ${names.join(" ")})
  (:init (first b0) ${names.slice(1).map((n, i) => `(next ${names[i]} ${n})`).join(" ")})
  (:goal (and ${names.map((n) => `(on ${n})`).join(" ")})))`,
  };
}

/** Action costs: the direct road is dearer than the detour. */
export const ROADS_DOMAIN = `
(define (domain roads)
  (:requirements :strips :typing :action-costs)
  (:types place)
  (:predicates (at ?p - place) (road ?a ?b - place))
  (:functions (length ?a ?b - place) - number (total-cost) - number)
  (:action go :parameters (?a ?b - place)
    :precondition (and (at ?a) (road ?a ?b))
    :effect (and (at ?b) (not (at ?a)) (increase (total-cost) (length ?a ?b)))))
`;
export const ROADS_PROBLEM = `
(define (problem detour) (:domain roads)
  (:objects s m t - place)
  (:init (at s) (road s t) (road s m) (road m t) (= (length s t) 10) (= (length s m) 2) (= (length m t) 3) (= (total-cost) 0))
  (:goal (at t))
  (:metric minimize (total-cost)))
`;
