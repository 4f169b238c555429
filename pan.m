#define rand	pan_rand
#define pthread_equal(a,b)	((a)==(b))
#if defined(HAS_CODE) && defined(VERBOSE)
	#ifdef BFS_PAR
		bfs_printf("Pr: %d Tr: %d\n", II, t->forw);
	#else
		cpu_printf("Pr: %d Tr: %d\n", II, t->forw);
	#endif
#endif
	switch (t->forw) {
	default: Uerror("bad forward move");
	case 0:	/* if without executable clauses */
		continue;
	case 1: /* generic 'goto' or 'skip' */
		IfNotBlocked
		_m = 3; goto P999;
	case 2: /* generic 'else' */
		IfNotBlocked
		if (trpt->o_pm&1) continue;
		_m = 3; goto P999;

		 /* PROC :init: */
	case 3: // STATE 1 - /tmp/bf/chain.pml:2 - [(run W(0))] (0:0:0 - 1)
		IfNotBlocked
		reached[1][1] = 1;
		if (!(addproc(II, 1, 0, 0)))
			continue;
		_m = 3; goto P999; /* 0 */
	case 4: // STATE 2 - /tmp/bf/chain.pml:2 - [-end-] (0:0:0 - 1)
		IfNotBlocked
		reached[1][2] = 1;
		if (!delproc(1, II)) continue;
		_m = 3; goto P999; /* 0 */

		 /* PROC W */
	case 5: // STATE 1 - /tmp/bf/chain.pml:1 - [x = k] (0:0:2 - 1)
		IfNotBlocked
		reached[0][1] = 1;
		(trpt+1)->bup.ovals = grab_ints(2);
		(trpt+1)->bup.ovals[0] = ((int)((P0 *)_this)->x);
		((P0 *)_this)->x = ((int)((P0 *)_this)->k);
#ifdef VAR_RANGES
		logval("W:x", ((int)((P0 *)_this)->x));
#endif
		;
		if (TstOnly) return 1; /* TT */
		/* dead 2: x */  
#ifdef HAS_CODE
		if (!readtrail)
#endif
			((P0 *)_this)->x = 0;
		_m = 3; goto P999; /* 0 */
	case 6: // STATE 2 - /tmp/bf/chain.pml:1 - [((k<9))] (0:0:0 - 1)
		IfNotBlocked
		reached[0][2] = 1;
		if (!((((int)((P0 *)_this)->k)<9)))
			continue;
		_m = 3; goto P999; /* 0 */
	case 7: // STATE 3 - /tmp/bf/chain.pml:1 - [(run W((k+1)))] (0:0:1 - 1)
		IfNotBlocked
		reached[0][3] = 1;
		if (!(addproc(II, 1, 0, (((int)((P0 *)_this)->k)+1))))
			continue;
		if (TstOnly) return 1; /* TT */
		/* dead 1: k */  (trpt+1)->bup.oval = ((P0 *)_this)->k;
#ifdef HAS_CODE
		if (!readtrail)
#endif
			((P0 *)_this)->k = 0;
		_m = 3; goto P999; /* 0 */
	case 8: // STATE 8 - /tmp/bf/chain.pml:1 - [-end-] (0:0:0 - 3)
		IfNotBlocked
		reached[0][8] = 1;
		if (!delproc(1, II)) continue;
		_m = 3; goto P999; /* 0 */
	case  _T5:	/* np_ */
		if (!((!(trpt->o_pm&4) && !(trpt->tau&128))))
			continue;
		/* else fall through */
	case  _T2:	/* true */
		_m = 3; goto P999;
#undef rand
	}

